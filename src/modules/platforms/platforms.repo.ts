import { type Insertable, type Kysely, type Selectable, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { PlatformStatusesTable } from '../../kernel/tables/platforms.js';

type Db = Kysely<Database> | Transaction<Database>;
export type PlatformStatusRow = Selectable<PlatformStatusesTable>;

/** Most platforms outside the catalog a tenant's list shows: more would be a client sending junk ids. */
export const MAX_SEEN_PLATFORMS = 1000;

export async function listStatusRows(db: Db, tenantId: string): Promise<PlatformStatusRow[]> {
  return db.selectFrom('platform_statuses').selectAll().where('tenant_id', '=', tenantId).orderBy('platform_id').execute();
}

/** The row, locked until the end of the transaction so concurrent changes apply one after the other. */
export async function findStatusForUpdate(tx: Transaction<Database>, tenantId: string, platformId: string) {
  return tx.selectFrom('platform_statuses').selectAll().where('tenant_id', '=', tenantId).where('platform_id', '=', platformId)
    .forUpdate().executeTakeFirst();
}

export async function upsertStatus(tx: Transaction<Database>, row: Insertable<PlatformStatusesTable>): Promise<PlatformStatusRow> {
  const { tenant_id: _tenant, platform_id: _platform, ...changes } = row;
  return tx.insertInto('platform_statuses').values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'platform_id']).doUpdateSet(changes))
    .returningAll().executeTakeFirstOrThrow();
}

/**
 * The distinct platform ids of the tenant's interactions, in order: one probe of the
 * `(tenant_id, platform_id, …)` index per platform (a skip scan), however many interactions each has.
 */
export async function seenPlatformIds(db: Db, tenantId: string, limit = MAX_SEEN_PLATFORMS): Promise<string[]> {
  const { rows } = await sql<{ platform_id: string }>`
    with recursive seen(platform_id, n) as (
      (select platform_id, 1 from interactions where tenant_id = ${tenantId} order by platform_id limit 1)
      union all
      select (select i.platform_id from interactions i where i.tenant_id = ${tenantId} and i.platform_id > seen.platform_id
              order by i.platform_id limit 1), n + 1
      from seen where seen.platform_id is not null and n < ${limit}
    )
    select platform_id from seen where platform_id is not null`.execute(db);
  return rows.map((row) => row.platform_id);
}

export async function hasSeenPlatform(db: Db, tenantId: string, platformId: string): Promise<boolean> {
  const row = await db.selectFrom('interactions').select(sql<number>`1`.as('one'))
    .where('tenant_id', '=', tenantId).where('platform_id', '=', platformId).limit(1).executeTakeFirst();
  return row !== undefined;
}
