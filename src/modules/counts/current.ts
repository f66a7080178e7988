import { type RawBuilder, sql } from 'kysely';
import type { Granularity } from '../../kernel/tables/counts.js';

/** A counts table and its deltas, with the family name their fold marks go by. */
export interface CountFamily {
  family: 'interactions' | 'alerts';
  counts: 'interaction_counts' | 'alert_counts';
  deltas: 'interaction_count_deltas' | 'alert_count_deltas';
}

export const INTERACTION_COUNTS: CountFamily = { family: 'interactions', counts: 'interaction_counts', deltas: 'interaction_count_deltas' };
export const ALERT_COUNTS: CountFamily = { family: 'alerts', counts: 'alert_counts', deltas: 'alert_count_deltas' };

/**
 * The rows of the newest generation (visible to the statement) of each bucket of `granularity` in
 * [from, to) (null: unbounded), that also match `where` (on alias `c`). A loose index scan finds
 * the buckets: one probe per bucket, which lands on its newest generation first, so the rows of
 * older generations, live or dead, are never read (docs/interaction-counts.md). `rowsFrom`
 * reads that generation's rows from another table keyed the same way (its levels).
 */
export function currentCounts(
  family: CountFamily, tenantId: string, granularity: Granularity, from: Date | null, to: Date | null,
  where: RawBuilder<unknown> = sql`true`, rowsFrom: 'interaction_count_levels' | undefined = undefined,
) {
  const table = sql.table(family.counts);
  const rows = sql.table(rowsFrom ?? family.counts);
  const before = to === null ? sql`` : sql`and bucket < ${to}`;
  const after = from === null ? sql`` : sql`and bucket >= ${from}`;
  return sql`(with recursive heads (bucket, generation) as (
      (select bucket, generation from ${table}
        where tenant_id = ${tenantId} and granularity = ${granularity} ${after} ${before}
        order by bucket, generation desc limit 1)
      union all
      select next.bucket, next.generation from heads cross join lateral (
        select bucket, generation from ${table}
        where tenant_id = ${tenantId} and granularity = ${granularity} and bucket > heads.bucket ${before}
        order by bucket, generation desc limit 1) next
    )
    -- Each bucket's rows as one index range, per bucket: a join, or this subquery once the planner
    -- pulled it up (offset 0 keeps it from doing so), could hash the tenant's every generation.
    select c.* from heads cross join lateral (
      select * from ${rows} c where c.tenant_id = ${tenantId} and c.granularity = ${granularity}
        and c.bucket = heads.bucket and c.generation = heads.generation and ${where} offset 0) c)`;
}

/**
 * Matches the deltas (alias `d`) not yet folded into the counts, in the statement's snapshot: at
 * or past the newest fold mark, read through the deltas' position index. The folded ones, deleted
 * or not yet removed by vacuum, lie below the mark.
 *
 * The upper bound (the snapshot's xmax) holds for every visible row; it is there for the planner:
 * a range with both ends estimates a few rows, where `>=` alone estimates a third of the table and,
 * with many dead deltas in its pages, made it scan the whole table (45 ms on 500,000 interactions
 * sent through the API, autovacuum off) instead of the index (1 ms).
 *
 * Both bounds compare the column with a plain value (a sub-select's result, a function of no
 * column): row-level security lets only such "leakproof" conditions drive an index ahead of its
 * policy. A `coalesce(...)` around the sub-select is not one, and made the read a sequential scan.
 */
export function unfolded(family: CountFamily) {
  return sql<boolean>`d.position >= (select coalesce(max(position), '0'::xid8) from count_folds where family = ${family.family})
    and d.position < pg_snapshot_xmax(pg_current_snapshot())`;
}

/**
 * `alias.column = value` for each column whose value is defined, joined with `and` (the tenant
 * always): the equality filters a count, delta or row answers.
 */
export function equalities(alias: string, values: Record<string, string | undefined>) {
  const conditions = Object.entries(values).filter(([, value]) => value !== undefined)
    .map(([column, value]) => sql`${sql.ref(`${alias}.${column}`)} = ${value}`);
  return sql.join(conditions, sql` and `);
}
