import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { RiskSplit, TimeSplit } from './buckets.js';

type Db = Kysely<Database> | Transaction<Database>;

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

type CountTables = 'interaction_counts' | 'interaction_count_deltas';

// Both tables have these columns: plain references serve either.
const ref = (column: string) => sql.ref(column);

function dimensionFilter<T extends CountTables>(
  eb: ExpressionBuilder<Database, T>, tenantId: string, dims: CountDimensions, risk: RiskSplit['whole'] | undefined,
): Expression<SqlBool>[] {
  const conditions = [eb(ref('tenant_id'), '=', tenantId)];
  if (dims.classificationType !== undefined) conditions.push(eb(ref('classification_type'), '=', dims.classificationType));
  if (dims.platformId !== undefined) conditions.push(eb(ref('platform_id'), '=', dims.platformId));
  if (dims.source !== undefined) conditions.push(eb(ref('source'), '=', dims.source));
  if (dims.direction !== undefined) conditions.push(eb(ref('direction'), '=', dims.direction));
  if (risk) conditions.push(eb.between(ref('risk_bucket'), risk.from, risk.to));
  return conditions;
}

/**
 * `detail` reads interaction_counts' rows by dimension; `rollup` its one row per bucket and
 * classification type (platform, source and direction '', risk bucket -1), which answers what
 * filters no dimension. The deltas are always detail rows.
 */
export type CountLevel = 'detail' | 'rollup';

/**
 * The compacted counts and the not yet compacted deltas of the whole buckets of a split, as
 * rows (`count` and the dimensions); sum them, or group them, in the caller's statement so the
 * two tables are read in one snapshot.
 */
export function bucketRows(
  db: Db, tenantId: string, dims: CountDimensions, time: TimeSplit, level: CountLevel, risk?: RiskSplit['whole'],
) {
  const covered = time.covered!;
  // One range scan of the primary key per bucket range.
  const counts = time.buckets.map((range) => db.selectFrom('interaction_counts')
    .select(['classification_type', 'platform_id', 'source', 'direction', 'risk_bucket', 'count'])
    .where((eb) => eb.and([
      ...dimensionFilter(eb, tenantId, dims, risk),
      eb('platform_id', level === 'rollup' ? '=' : '<>', ''),
      eb('granularity', '=', range.granularity),
      ...(range.from === null ? [] : [eb('bucket', '>=', new Date(range.from))]),
      ...(range.to === null ? [] : [eb('bucket', '<', new Date(range.to))]),
    ])));
  const deltas = db.selectFrom('interaction_count_deltas')
    .select(['classification_type', 'platform_id', 'source', 'direction', 'risk_bucket', 'count'])
    .where((eb) => eb.and([
      ...dimensionFilter(eb, tenantId, dims, risk),
      ...(covered.from === null ? [] : [eb('bucket', '>=', new Date(covered.from))]),
      ...(covered.to === null ? [] : [eb('bucket', '<', new Date(covered.to))]),
    ]));
  return counts.reduce((union, query) => union.unionAll(query), deltas);
}

/** The sum of bucketRows, as a scalar subquery: from the roll-ups when no dimension or risk bucket is filtered. */
export function bucketSum(db: Db, tenantId: string, dims: CountDimensions, time: TimeSplit, risk?: RiskSplit['whole']) {
  const level = dims.platformId === undefined && dims.source === undefined && dims.direction === undefined && !risk
    ? 'rollup' : 'detail';
  return sql<string>`(select coalesce(sum(count), 0) from (${bucketRows(db, tenantId, dims, time, level, risk)}) as bucket_rows)`;
}
