import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { openAlertsBySeverity } from '../counts/alert-sums.js';
import { riskBucketOf, splitTime } from '../counts/buckets.js';
import { bucketRows, type CountDimensions, type CountLevel } from '../counts/sums.js';
import { type DateRange, parseDateRange } from '../../kernel/dates.js';
import type { Severity, Source } from '../../kernel/tables/interactions.js';
import type { StatsFilters, StatsResponse } from './stats.schemas.js';
import { countSeries, seriesRange } from './stats.series.js';
import { TOP_USERS_FROM_ROLLUPS_ABOVE, TOP_USERS_MAX_HIGH_RISK, TOP_USERS_RISK, topUsersFromRollups, topUsersFromRows } from './stats.top-users.js';

const TOP = 100;
// Bands are [min, max) except the last, [0.8, 1]: two risk buckets each (counts/buckets.ts).
const BANDS = [[0, 0.2], [0.2, 0.4], [0.4, 0.6], [0.6, 0.8], [0.8, 1]] as const;
const bandOf = (riskBucket: number) => Math.floor(riskBucket / 2);
const HIGH_RISK_BUCKET = riskBucketOf(TOP_USERS_RISK);

/**
 * The dashboard's counts over interactions (and their open alerts) created within the range. With
 * an interval, the range gets its defaults (stats.series.ts) and the counts per bucket; the counts
 * and the series are read in one snapshot, so the buckets add up to the total. The top users
 * (stats.top-users.ts) and the open alerts are statements of their own, run beside them.
 */
export async function getStats(deps: Deps, ctx: RequestContext, filters: StatsFilters): Promise<StatsResponse> {
  const requested = parseDateRange(filters);
  const interval = filters.interval;
  const range: DateRange = interval ? seriesRange(requested, interval, deps.clock.now()) : requested;
  const db = await deps.store.reader();
  // The top users start once the counts are read (they say how many high-risk interactions there
  // are), on a connection of their own: beside the series on PostgreSQL, after it on the embedded store.
  const withTopUsers = (groups: GroupRow[]) => ({ groups, users: boundedTopUsers(db, ctx.tenantId, range, groups) });
  const counted = interval
    ? db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
      const read = withTopUsers(await countInteractionGroups(tx, ctx.tenantId, range));
      return { ...read, series: await countSeries(tx, ctx.tenantId, interval, range.start!, range.end!) };
    })
    : countInteractionGroups(db, ctx.tenantId, range).then((groups) => ({ ...withTopUsers(groups), series: null }));
  const [{ groups, users, series }, severities] = await Promise.all([counted, openAlertsBySeverity(db, ctx.tenantId, range)]);
  let total = 0;
  const bySource: Record<Source, number> = { browser_extension: 0, proxy: 0, endpoint_agent: 0, api: 0 };
  const byBand = BANDS.map(() => 0);
  const byPlatform: Array<{ platform_id: string; count: number }> = [];
  const byType: Array<{ type: string; count: number }> = [];
  for (const row of groups) {
    const count = Number(row.count);
    if (count === 0) continue;
    if (row.kind === 'platform') byPlatform.push({ platform_id: row.key, count });
    else if (row.kind === 'source') {
      bySource[row.key as Source] += count;
      byBand[bandOf(row.risk_bucket!)]! += count;
    } else if (row.key === '') total = count;
    else byType.push({ type: row.key, count });
  }
  const bySeverity: Record<Severity, number> = { low: 0, medium: 0, high: 0, critical: 0 };
  for (const row of severities) bySeverity[row.severity] = Number(row.count);
  return {
    start_date: range.start?.toISOString() ?? null,
    end_date: range.end?.toISOString() ?? null,
    interactions: {
      total,
      by_platform: top(byPlatform, (row) => row.platform_id),
      by_source: bySource,
      by_risk_band: BANDS.map(([min, max], i) => ({ band: `${min}-${max}`, min, max, count: byBand[i]! })),
      by_classification_type: top(byType, (row) => row.type),
    },
    alerts: { open: Object.values(bySeverity).reduce((sum, n) => sum + n, 0), open_by_severity: bySeverity },
    series,
    top_users: await users,
  };
}

/**
 * The top users, or null when the range holds more than TOP_USERS_MAX_HIGH_RISK high-risk
 * interactions: known exactly, without reading their rows, from the counts by risk bucket just
 * read (buckets 7 to 9 are the scores from 0.7). Past TOP_USERS_FROM_ROLLUPS_ABOVE they are read
 * from the usage roll-ups (and the rows of what is not rolled up), else from their rows.
 */
function boundedTopUsers(db: Kysely<Database>, tenantId: string, range: DateRange, groups: GroupRow[]) {
  const highRisk = groups.filter((row) => row.kind === 'source' && row.risk_bucket! >= HIGH_RISK_BUCKET)
    .reduce((sum, row) => sum + Number(row.count), 0);
  const users = highRisk > TOP_USERS_MAX_HIGH_RISK ? Promise.resolve(null)
    : highRisk > TOP_USERS_FROM_ROLLUPS_ABOVE ? topUsersFromRollups(db, tenantId, range) : topUsersFromRows(db, tenantId, range);
  // Awaited by getStats once the rest is read; meanwhile a failure must not count as unhandled.
  users.catch(() => {});
  return users;
}

/** The most frequent first, ties by name. */
function top<T extends { count: number }>(rows: T[], name: (row: T) => string): T[] {
  return rows.sort((a, b) => b.count - a.count || (name(a) < name(b) ? -1 : 1)).slice(0, TOP);
}

interface GroupRow {
  kind: 'type' | 'platform' | 'source';
  key: string;
  risk_bucket: number | null;
  count: string | number;
}

/**
 * Interactions in the range by classification type ('' = all), by platform, and by source and
 * risk bucket, in one statement: whole hours from the aggregates (types from their roll-ups,
 * platforms and sources from the levels of '' that sum the other dimensions), the partial hours
 * at the range's ends from their rows.
 */
async function countInteractionGroups(db: Kysely<Database> | Transaction<Database>, tenantId: string, range: DateRange): Promise<GroupRow[]> {
  const time = splitTime(range.start, range.end);
  const edges = time.edges.map((edge) => sql`
    select t.type as classification_type, i.platform_id, i.source, interaction_risk_bucket(i.risk_score) as risk_bucket
    from interactions i cross join lateral (
      select '' as type union all select distinct c->>'type' from jsonb_array_elements(i.classifications) c) t
    where i.tenant_id = ${tenantId} and i.timestamp >= ${new Date(edge.start)} and i.timestamp <= ${new Date(edge.end)}`);
  const edgeRows = edges.length ? sql.join(edges, sql` union all `)
    : sql`select '' as classification_type, '' as platform_id, '' as source, 0::smallint as risk_bucket where false`;
  const counted = (dims: CountDimensions, level: CountLevel) => (time.covered ? sql`${bucketRows(tenantId, dims, time, level)} union all ` : sql``);
  const edgeOfEvery = sql`select classification_type, platform_id, source, '' as direction, risk_bucket, count from edge
    where classification_type = ''`;
  const { rows } = await sql<GroupRow>`
    with edge as (
      select classification_type, platform_id, source, risk_bucket, count(*) as count from (${edgeRows}) e group by 1, 2, 3, 4)
    select 'type' as kind, classification_type as key, null::smallint as risk_bucket, sum(count) as count from (
      ${counted({}, 'rollup')} select classification_type, platform_id, source, '' as direction, risk_bucket, count from edge) t
      group by classification_type
    union all
    select 'platform', platform_id, null, sum(count) from (${counted({ classificationType: '' }, 'platform_risk')} ${edgeOfEvery}) p
      group by platform_id
    union all
    select 'source', source, risk_bucket, sum(count) from (${counted({ classificationType: '' }, 'source_risk')} ${edgeOfEvery}) s
      group by source, risk_bucket`.execute(db);
  return rows;
}
