import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';

/**
 * Deletes up to `limit` interactions of a tenant that `condition` selects (oldest first when
 * `oldestFirst`), and their alerts, in one statement; the counts' triggers count both. Retention
 * and erasure call it batch after batch, so no statement holds its locks for long.
 */
export async function deleteInteractionsBatch(
  db: Kysely<Database>, tenantId: string, condition: RawBuilder<unknown>, limit: number, oldestFirst = false,
): Promise<{ interactions: number; alerts: number }> {
  const { rows: [row] } = await sql<{ interactions: number; alerts: number }>`
    with doomed as (
      select id from interactions where tenant_id = ${tenantId} and ${condition}
      ${oldestFirst ? sql`order by timestamp` : sql``} limit ${limit}
    ), gone_alerts as (
      delete from alerts a using doomed d where a.tenant_id = ${tenantId} and a.interaction_id = d.id returning 1
    ), gone as (
      delete from interactions i using doomed d where i.tenant_id = ${tenantId} and i.id = d.id returning 1
    )
    select (select count(*) from gone)::int as interactions, (select count(*) from gone_alerts)::int as alerts`.execute(db);
  return row ?? { interactions: 0, alerts: 0 };
}
