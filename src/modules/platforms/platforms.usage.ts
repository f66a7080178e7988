import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { DateRange } from '../../kernel/dates.js';
import { riskBucketOf, splitTime } from '../counts/buckets.js';
import { bucketRows } from '../counts/sums.js';
import { TOP_USERS_RISK } from '../stats/stats.top-users.js';
import type { UsageFigures } from '../rollups/usage-figures.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The stats' high-risk threshold (risk buckets 7 to 9: no partial bucket, so the counts answer it whole). */
export const HIGH_RISK_SCORE = TOP_USERS_RISK;
const HIGH_RISK_BUCKET = riskBucketOf(HIGH_RISK_SCORE);

/** Most platforms a usage answer lists (the most used): more would be a client sending junk ids. */
export const MAX_USAGE_PLATFORMS = 1000;

export interface PlatformCounts {
  platform_id: string;
  interactions: number;
  high_risk: number;
}

/**
 * Interactions and high-risk interactions per platform in the range, as list totals count them:
 * the whole hours from the counts of every interaction (type '') by platform and risk bucket (their
 * `platform_risk` level) and the not yet folded deltas, grouped by platform and risk bucket; the partial hours at the range's ends
 * counted from their rows through interactions_time_idx. Its cost follows the buckets and the
 * dimension combinations in each, not the rows (docs/interaction-counts.md).
 */
export async function countByPlatform(db: Db, tenantId: string, range: DateRange): Promise<PlatformCounts[]> {
  const time = splitTime(range.start, range.end);
  const edges = time.edges.map((edge) => sql`
    select i.platform_id, interaction_risk_bucket(i.risk_score) as risk_bucket, count(*) as count from interactions i
    where i.tenant_id = ${tenantId} and i.timestamp >= ${new Date(edge.start)} and i.timestamp <= ${new Date(edge.end)}
    group by 1, 2`);
  const pieces = [
    ...(time.covered ? [sql`select platform_id, risk_bucket, count from (${bucketRows(tenantId, { classificationType: '' }, time, 'platform_risk')}) b`] : []),
    ...edges,
  ];
  if (pieces.length === 0) return [];
  const { rows } = await sql<{ platform_id: string; interactions: string | number; high_risk: string | number }>`
    select platform_id, sum(count) as interactions, coalesce(sum(count) filter (where risk_bucket >= ${HIGH_RISK_BUCKET}), 0) as high_risk
    from (${sql.join(pieces, sql` union all `)}) as pieces
    group by platform_id
    having sum(count) > 0
    order by sum(count) desc, platform_id
    limit ${MAX_USAGE_PLATFORMS}`.execute(db);
  return rows.map((row) => ({ platform_id: row.platform_id, interactions: Number(row.interactions), high_risk: Number(row.high_risk) }));
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
