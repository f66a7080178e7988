import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { DateRange } from '../../kernel/dates.js';
import type { PlatformTotals, UsageFigures } from '../rollups/usage-figures.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Most platforms a usage answer lists (the most used): more would be a client sending junk ids. */
export const MAX_USAGE_PLATFORMS = 1000;

/** The most used platforms first (ties by id), at most MAX_USAGE_PLATFORMS. */
export function mostUsed(totals: readonly PlatformTotals[]): PlatformTotals[] {
  return [...totals]
    .sort((a, b) => b.interactions - a.interactions || (a.platform_id < b.platform_id ? -1 : a.platform_id > b.platform_id ? 1 : 0))
    .slice(0, MAX_USAGE_PLATFORMS);
}

export interface PlatformReach {
  platform_id: string;
  users: number;
  first_seen: Date;
  last_seen: Date;
}

/**
 * First and last interaction and distinct users of each platform in the range:
 * - `first_seen`, `last_seen`: one probe each of interactions_platform_idx (tenant_id, platform_id,
 *   timestamp, …) from either end of the range (`Limit -> Index Only Scan`, a min/max);
 * - `users`: from `figures`, the period's figures for platforms (`periodFigures`: the union of the
 *   users' bitmaps of the clean roll-ups covering the range's whole days and the users of the
 *   rest of it from its rows). Read them in the same repeatable-read transaction as the counts.
 */
export async function reachByPlatform(
  db: Db, tenantId: string, platformIds: readonly string[], range: DateRange, figures: UsageFigures,
): Promise<PlatformReach[]> {
  if (platformIds.length === 0) return [];
  const within = (alias: string) => sql.join([
    sql`true`,
    ...(range.start ? [sql`${sql.ref(`${alias}.timestamp`)} >= ${range.start}`] : []),
    ...(range.end ? [sql`${sql.ref(`${alias}.timestamp`)} <= ${range.end}`] : []),
  ], sql` and `);
  const { rows } = await sql<{ platform_id: string; first_seen: Date; last_seen: Date }>`
    select p.platform_id,
      (select min(f.timestamp) from interactions f
       where f.tenant_id = ${tenantId} and f.platform_id = p.platform_id and ${within('f')}) as first_seen,
      (select max(l.timestamp) from interactions l
       where l.tenant_id = ${tenantId} and l.platform_id = p.platform_id and ${within('l')}) as last_seen
    from unnest(${platformIds}::text[]) as p(platform_id)`.execute(db);
  return rows.map((row) => ({
    platform_id: row.platform_id, users: figures.usersOf(row.platform_id),
    first_seen: new Date(row.first_seen), last_seen: new Date(row.last_seen),
  }));
}
