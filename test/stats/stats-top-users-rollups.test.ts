import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Harness as TestHarness, TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { DAY, type Item, expectedTop, seedTopUsers, statsTopUsers, user } from '../helpers/top-users-fixtures.js';

// The top users come from the roll-ups past 50,000 high-risk interactions in the range; from 0
// here, so that a few rows take that way. Test files share their worker's modules
// (vitest.config.ts): the app is loaded anew for this file, with the mock, and without it after.
const TOP_USERS_MODULE = '../../src/modules/stats/stats.top-users.js';
vi.resetModules();
vi.doMock(TOP_USERS_MODULE, async (original) => ({
  ...await original<typeof import('../../src/modules/stats/stats.top-users.js')>(),
  TOP_USERS_FROM_ROLLUPS_ABOVE: 0,
}));
const { Harness } = await import('../helpers/harness.js');
// From the same load of the app as the harness (its tenant scope is that load's).
const { rollUpUsage } = await import('../../src/modules/rollups/usage-rollups.job.js');
afterAll(() => {
  vi.doUnmock(TOP_USERS_MODULE);
  vi.resetModules();
});

describe.each(STORES)('stats top users from the roll-ups [%s]', (kind) => {
  let h: TestHarness;
  let t: TestTenant;
  let early: Item[];
  let late: Item[];
  let lateStart: string;

  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    ({ early, late, lateStart } = await seedTopUsers(h, t));
  }, 60_000);
  afterAll(async () => h.close());

  const topUsers = (query: Record<string, string> = {}) => statsTopUsers(h, t, query);
  const rollUp = () => rollUpUsage(h.deps.store.db, new Date(h.clock.now().getTime() + 3 * DAY), [t.tenantId]);
  const before = () => new Date(Date.parse(lateStart) - 1).toISOString();

  it('gives the same answers before any roll-up (the rows), and once the days are rolled up', async () => {
    expect(await topUsers()).toEqual(expectedTop([...early, ...late]));
    expect((await rollUp()).days).toBeGreaterThan(0);
    expect(await topUsers()).toEqual(expectedTop([...early, ...late]));
    expect(await topUsers({ start_date: lateStart })).toEqual(expectedTop(late));
    expect(await topUsers({ end_date: before() })).toEqual(expectedTop(early));
    expect(await topUsers({ end_date: '2000-01-01T00:00:00Z' })).toEqual([]);
  });

  it('reads the days an erasure changed from their rows until they are rolled up again', async () => {
    const erased = await h.call('POST', `/api/v1/users/${user(7)}/erase-interactions`, { token: t.adminToken });
    expect(erased.statusCode, erased.body).toBeLessThan(300);
    const remaining = [...early, ...late].filter((item) => item.user_id !== user(7));
    expect(await topUsers()).toEqual(expectedTop(remaining));
    await rollUp();
    expect(await topUsers()).toEqual(expectedTop(remaining));
  });

  // Last: it empties the tenant's roll-ups.
  it('reads the roll-ups for the days they cover: emptied behind the service\'s back, those days count nothing', async () => {
    await sql`update usage_rollups set high_risk = ''::bytea where tenant_id = ${t.tenantId}`.execute(h.db);
    await sql`update usage_rollup_slots set high_risk = ''::bytea where tenant_id = ${t.tenantId}`.execute(h.db);
    expect(await topUsers()).toEqual([]);
  });
});
