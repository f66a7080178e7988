import { sql } from 'kysely';
import type { InteractionCountLevelsTable } from '../../kernel/tables/counts.js';
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
 * Which rows of a bucket answer: `detail`, interaction_counts' rows by every dimension; `rollup`,
 * its one row per bucket and classification type (platform, source and direction '', risk bucket
 * -1), for what filters no dimension; or a level of interaction_count_levels, the detail summed
 * over the dimensions it leaves open (docs/interaction-counts.md, "Levels"). The deltas are
 * always detail rows.
 */
export type CountLevel = 'detail' | 'rollup' | InteractionCountLevelsTable['level'];

/** The level with the fewest rows that answers these filters exactly. */
export function levelFor(dims: CountDimensions, risk: RiskSplit['whole'] | undefined): CountLevel {
  const platform = dims.platformId !== undefined;
  const source = dims.source !== undefined;
  const direction = dims.direction !== undefined;
  if (!platform && !source && !direction && !risk) return 'rollup';
  if (platform) return source || direction ? 'detail' : 'platform_risk';
  if (risk) return direction ? 'detail' : 'source_risk';
  return 'source_direction';
}

const levelFilter = (level: CountLevel) => {
  if (level === 'detail') return sql`c.platform_id <> ''`;
  if (level === 'rollup') return sql`c.platform_id = ''`;
  return sql`c.level = ${level}`;
};

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
  const rowsFrom = level === 'detail' || level === 'rollup' ? undefined : 'interaction_count_levels';
  const counts = time.buckets.map((range) => sql`select ${columnsOf('c')} from ${currentCounts(INTERACTION_COUNTS, tenantId,
    range.granularity, range.from === null ? null : new Date(range.from), range.to === null ? null : new Date(range.to),
    sql`${dimensionFilter('c', tenantId, dims, risk)} and ${levelFilter(level)}`, rowsFrom)} as c`);
  const deltas = sql`select ${columnsOf('d')} from interaction_count_deltas d
    where ${unfolded(INTERACTION_COUNTS)} and ${dimensionFilter('d', tenantId, dims, risk)}
    ${covered.from === null ? sql`` : sql`and d.bucket >= ${new Date(covered.from)}`}
    ${covered.to === null ? sql`` : sql`and d.bucket < ${new Date(covered.to)}`}`;
  return sql.join([deltas, ...counts], sql` union all `);
}

/** The sum of bucketRows, as a scalar subquery, from the level that answers the filters (`levelFor`). */
export function bucketSum(tenantId: string, dims: CountDimensions, time: TimeSplit, risk?: RiskSplit['whole']) {
  const level = levelFor(dims, risk);
  return sql<string>`(select coalesce(sum(count), 0) from (${bucketRows(tenantId, dims, time, level, risk)}) as bucket_rows)`;
}
