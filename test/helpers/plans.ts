import { CompiledQuery, type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/kernel/tables/database.js';
import { acrossTenants } from '../../src/platform/store/tenant-scope.js';

/**
 * The plan of a statement with sequential scans off: what the planner itself chooses once a
 * tenant is a small part of a large table, which a test's few hundred rows cannot show.
 * `explain` may carry options, e.g. 'explain (analyze, costs off)'.
 */
export async function planOf(db: Kysely<Database>, query: CompiledQuery, explain = 'explain'): Promise<string> {
  return acrossTenants(() => db.transaction().execute(async (tx) => {
    await sql`set local enable_seqscan = off`.execute(tx);
    return plannedAs(tx, query, explain);
  }));
}

/**
 * The plan of a statement as the planner chooses it, sequential scans allowed: as the service
 * runs it, under row-level security (whatever scope `db` carries, a compiled statement takes the caller's).
 */
export async function plannedAs(db: Kysely<Database>, query: CompiledQuery, explain = 'explain'): Promise<string> {
  const explained = CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]);
  const result = await acrossTenants(() => db.executeQuery<{ 'QUERY PLAN': string }>(explained));
  return result.rows.map((row) => row['QUERY PLAN']).join('\n');
}

/** No sequential scan, no hash join (which would read a tenant's counts of every generation), the deltas by position. */
export function expectNoWholeTable(text: string) {
  expect(text).not.toMatch(/Seq Scan|Hash Join/);
  for (const deltas of ['interaction_count_deltas', 'alert_count_deltas']) {
    if (text.includes(deltas)) expect(text).toContain(`${deltas}_position_idx`);
  }
}
