import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactCounts } from '../../src/modules/counts/compaction.js';
import { seriesQuery } from '../../src/modules/stats/stats.series.js';
import { highRiskRowsQuery, topUsersQuery } from '../../src/modules/stats/stats.top-users.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { expectNoWholeTable, planOf } from '../helpers/plans.js';
import { STORES } from '../helpers/stores.js';

const UNALIGNED = { start: new Date('2024-03-10T10:17:23.456Z'), end: new Date('2024-03-14T10:17:23.455Z') };
const USER = '0190a0a0-0000-7000-8000-000000000001';

/**
 * How the series and the top users are read, with sequential scans off (what the planner itself
 * chooses once a tenant is a small part of a large table; docs/interactions.md, "Storage and
 * indexes"): whole buckets from the current generation of interaction_counts, the deltas not yet
 * folded by their position, partial hours from the time index, the high-risk rows (those not rolled up, past many) from
 * their partial index alone, each top user's total from the user index. No table is read whole.
 */
describe.each(STORES)('plans of the stats\' series and top users [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    const items = Array.from({ length: 300 }, (_, i) => interactionBody({
      platform_id: ['openai', 'claude', 'gemini'][i % 3], risk_score: (i % 100) / 100, user_id: i % 4 ? USER : null,
    }));
    await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items });
    await compactCounts(h.db);
    await sql`vacuum analyze interactions`.execute(h.db);
  });
  afterAll(async () => h.close());

  const plan = (query: RawBuilder<unknown>) => planOf(h.db, query.compile(h.db));

  it.each([['hour'], ['day']] as const)('reads %s buckets from interaction_counts and the partial hours from the time index', async (interval) => {
    const text = await plan(seriesQuery(h.db, t.tenantId, interval, UNALIGNED.start, UNALIGNED.end));
    expect(text).toMatch(/interaction_counts_current_idx/);
    expect(text).toMatch(/interactions_time_idx/);
    expectNoWholeTable(text);
  });

  it.each([
    ['the whole history', {}],
    ['a range', UNALIGNED],
  ])('counts the top users of %s from the partial high-risk index alone, and their totals from the user index', async (_name, range) => {
    const text = await plan(topUsersQuery(t.tenantId, range));
    // On a table this small the planner may read the index as a bitmap, and may take the platform
    // users' index (tenant_id, platform_id, user_id, ...) for a user's rows, as cheap here as the
    // user index; on a large one it is an index-only scan of the user index (docs/interactions.md,
    // "Top users", gives the plan at 10 M rows).
    expect(text).toMatch(/interactions_high_risk_user_idx/);
    expect(text).toMatch(/interactions_(platform_)?user_idx/);
    expect(text).not.toMatch(/Seq Scan/);
  });

  it.each([
    ['the whole history', [{ start: null, end: null }]],
    ['a range', [{ start: UNALIGNED.start.getTime(), end: UNALIGNED.end.getTime() + 1 }]],
    ['the intervals a roll-up leaves', [{ start: UNALIGNED.start.getTime(), end: Date.parse('2024-03-11T00:00:00Z') },
      { start: Date.parse('2024-03-14T00:00:00Z'), end: UNALIGNED.end.getTime() + 1 }]],
  ])('counts the high-risk interactions of %s not rolled up from the partial high-risk index alone', async (_name, live) => {
    const text = await plan(highRiskRowsQuery(t.tenantId, live));
    // On a table this small the planner may read the index as a bitmap.
    expect(text).toMatch(/interactions_high_risk_user_idx/);
    expect(text).not.toMatch(/Seq Scan/);
  });
});
