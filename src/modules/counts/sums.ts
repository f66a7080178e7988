import { sql } from 'kysely';
import type { RiskSplit, TimeSplit } from './buckets.js';
import { currentCounts, equalities, INTERACTION_COUNTS, unfolded } from './current.js';

/**
 * The equality filters an aggregate row can answer. Classification type '' means every
 * interaction; undefined takes the rows of every type and of '' (for grouping by type).
 */
export interface CountDimensions {
  classificationType?: string | undefined;
  platformId?: string | undefined;
  source?: string | undefined;
  direction?: string | undefined;
}

/** The equality filters and risk buckets, as SQL on a count or delta row (alias `alias`). */
function dimensionFilter(alias: string, tenantId: string, dims: CountDimensions, risk: RiskSplit['whole'] | undefined) {
  const equal = equalities(alias, {
    tenant_id: tenantId, classification_type: dims.classificationType, platform_id: dims.platformId,
    source: dims.source, direction: dims.direction,
  });
  return risk ? sql`${equal} and ${sql.ref(`${alias}.risk_bucket`)} between ${risk.from} and ${risk.to}` : equal;
}

/**
 * `detail` reads interaction_counts' rows by dimension; `rollup` its one row per bucket and
 * classification type (platform, source and direction '', risk bucket -1), which answers what
 * filters no dimension. The deltas are always detail rows.
 */
export type CountLevel = 'detail' | 'rollup';

const COLUMNS = ['classification_type', 'platform_id', 'source', 'direction', 'risk_bucket', 'count'];
const columnsOf = (alias: string) => sql.join(COLUMNS.map((column) => sql.ref(`${alias}.${column}`)));

/**
 * The compacted counts and the not yet folded deltas of the whole buckets of a split, as rows
 * (`count` and the dimensions); sum them, or group them, in the caller's statement so the two
 * tables are read in one snapshot.
 */
export function bucketRows(
  tenantId: string, dims: CountDimensions, time: TimeSplit, level: CountLevel, risk?: RiskSplit['whole'],
) {
  const covered = time.covered!;
  const levelFilter = level === 'rollup' ? sql`c.platform_id = ''` : sql`c.platform_id <> ''`;
  const counts = time.buckets.map((range) => sql`select ${columnsOf('c')} from ${currentCounts(INTERACTION_COUNTS, tenantId,
    range.granularity, range.from === null ? null : new Date(range.from), range.to === null ? null : new Date(range.to),
    sql`${dimensionFilter('c', tenantId, dims, risk)} and ${levelFilter}`)} as c`);
  const deltas = sql`select ${columnsOf('d')} from interaction_count_deltas d
    where ${unfolded(INTERACTION_COUNTS)} and ${dimensionFilter('d', tenantId, dims, risk)}
    ${covered.from === null ? sql`` : sql`and d.bucket >= ${new Date(covered.from)}`}
    ${covered.to === null ? sql`` : sql`and d.bucket < ${new Date(covered.to)}`}`;
  return sql.join([deltas, ...counts], sql` union all `);
}

/** The sum of bucketRows, as a scalar subquery: from the roll-ups when no dimension or risk bucket is filtered. */
export function bucketSum(tenantId: string, dims: CountDimensions, time: TimeSplit, risk?: RiskSplit['whole']) {
  const level = dims.platformId === undefined && dims.source === undefined && dims.direction === undefined && !risk
    ? 'rollup' : 'detail';
  return sql<string>`(select coalesce(sum(count), 0) from (${bucketRows(tenantId, dims, time, level, risk)}) as bucket_rows)`;
}
