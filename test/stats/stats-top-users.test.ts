import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpUsage } from '../../src/modules/rollups/usage-rollups.job.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const user = (n: number) => `0190a0a0-0000-7000-8000-0000000000${String(n).padStart(2, '0')}`;

interface Item { user_id: string | null; risk_score: number }

/** `high` interactions of the user at or above 0.7 and `low` below it, thresholds and their neighbours included. */
function itemsOf(user_id: string | null, high: number, low: number): Item[] {
  const highScores = [0.7, 1, 0.7000000000000001, 0.95, 0.8];
  const lowScores = [0.6999999999999999, 0, 0.5, 0.69];
  return [
    ...Array.from({ length: high }, (_, i) => ({ user_id, risk_score: highScores[i % highScores.length]! })),
    ...Array.from({ length: low }, (_, i) => ({ user_id, risk_score: lowScores[i % lowScores.length]! })),
  ];
}

/** What top_users should be, counted in JavaScript from the items. */
function expectedTop(items: Item[]) {
  const users = new Map<string, { user_id: string; high_risk: number; total: number }>();
  for (const item of items) {
    if (item.user_id === null) continue;
    const entry = users.get(item.user_id) ?? { user_id: item.user_id, high_risk: 0, total: 0 };
    entry.total += 1;
    if (item.risk_score >= 0.7) entry.high_risk += 1;
    users.set(item.user_id, entry);
  }
  return [...users.values()].filter((u) => u.high_risk > 0)
    .sort((a, b) => b.high_risk - a.high_risk || (a.user_id < b.user_id ? -1 : 1)).slice(0, 10);
}

describe.each(STORES)('stats top users [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let early: Item[];
  let late: Item[];
  let lateStart: string;

  async function createAll(tenant: TestTenant, items: Item[]) {
    const response = await h.call('POST', '/api/v1/interactions/batch', {
      token: tenant.adminToken, body: items.map((item) => interactionBody({ ...item })),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().stored).toBe(items.length);
  }

  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    // Ties on 5, 3 and 2 high-risk interactions (with the later ones), broken by user_id; twelve users have some,
    // so two are left out, one of them tied with the tenth.
    early = [
      ...itemsOf(user(3), 5, 1), ...itemsOf(user(7), 5, 4), ...itemsOf(user(1), 4, 0), ...itemsOf(user(12), 3, 2),
      ...itemsOf(user(2), 3, 0), ...itemsOf(user(5), 3, 7), ...itemsOf(user(4), 2, 1), ...itemsOf(user(6), 2, 0),
      ...itemsOf(user(10), 2, 0), ...itemsOf(user(9), 1, 3), ...itemsOf(user(8), 1, 1),
      // Only below the threshold; and high-risk interactions of no user.
      ...itemsOf(user(11), 0, 9), ...itemsOf(null, 12, 2),
    ];
    await createAll(t, early);
    h.clock.advance(2 * HOUR);
    // Later: user 11 gets high-risk interactions, user 3 low ones only.
    late = [...itemsOf(user(11), 2, 1), ...itemsOf(user(3), 0, 3), ...itemsOf(user(8), 1, 0)];
    // Every later row is stored at or after this instant, every earlier one two hours before it.
    lateStart = h.clock.now().toISOString();
    await createAll(t, late);
    h.clock.reset();
    // Another tenant: the same users with far more high-risk interactions, never counted.
    await createAll(await h.tenant('Other'), [...itemsOf(user(11), 30, 0), ...itemsOf(user(3), 30, 5)]);
  }, 60_000);
  afterAll(async () => h.close());

  async function topUsers(query: Record<string, string> = {}) {
    const response = await h.call('GET', '/api/v1/stats', { token: t.adminToken, query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().top_users;
  }

  it('lists the ten users with the most interactions of risk_score >= 0.7, ties by user_id, with their totals', async () => {
    const top = await topUsers();
    expect(top).toEqual(expectedTop([...early, ...late]));
    expect(top.map((u: { user_id: string }) => u.user_id)).toEqual(
      [user(3), user(7), user(1), user(2), user(5), user(12), user(4), user(6), user(8), user(10)]);
    expect(top[0]).toEqual({ user_id: user(3), high_risk: 5, total: 9 });
    expect(top.find((u: { user_id: string }) => u.user_id === user(8))).toEqual({ user_id: user(8), high_risk: 2, total: 3 });
  });

  it('counts only the range: high-risk and total alike', async () => {
    const later = await topUsers({ start_date: lateStart });
    expect(later).toEqual(expectedTop(late));
    expect(later).toEqual([{ user_id: user(11), high_risk: 2, total: 3 }, { user_id: user(8), high_risk: 1, total: 1 }]);
    const before = new Date(Date.parse(lateStart) - 1).toISOString();
    expect(await topUsers({ end_date: before })).toEqual(expectedTop(early));
    expect(await topUsers({ end_date: '2000-01-01T00:00:00Z' })).toEqual([]);
  });

  it('covers the interval\'s range when one is given', async () => {
    const query = { interval: 'hour', end_date: new Date(Date.parse(lateStart) + HOUR).toISOString() };
    const body = (await h.call('GET', '/api/v1/stats', { token: t.adminToken, query })).json();
    // The default range of 48 hours holds both batches; its end two hours later only the later one.
    expect(body.top_users).toEqual(expectedTop([...early, ...late]));
    const recent = (await h.call('GET', '/api/v1/stats', { token: t.adminToken, query: { ...query, start_date: lateStart } })).json();
    expect(recent.top_users).toEqual(expectedTop(late));
  });

  it('is empty for a tenant without high-risk interactions', async () => {
    const quiet = await h.tenant('Quiet');
    await createAll(quiet, itemsOf(user(1), 0, 4));
    const response = await h.call('GET', '/api/v1/stats', { token: quiet.adminToken });
    expect(response.json().top_users).toEqual([]);
  });

  // Last: it empties the tenant's roll-ups.
  it('reads the days rolled up from their roll-ups and the rest from the rows, with the same answers', async () => {
    const run = await rollUpUsage(h.deps.store.db, new Date(h.clock.now().getTime() + 3 * DAY), [t.tenantId]);
    expect(run.days).toBeGreaterThan(0);
    const before = new Date(Date.parse(lateStart) - 1).toISOString();
    expect(await topUsers()).toEqual(expectedTop([...early, ...late]));
    expect(await topUsers({ start_date: lateStart })).toEqual(expectedTop(late));
    expect(await topUsers({ end_date: before })).toEqual(expectedTop(early));
    // An erasure marks its days changed: they are read from the rows until rolled up again.
    const erased = await h.call('POST', `/api/v1/users/${user(7)}/erase-interactions`, { token: t.adminToken });
    expect(erased.statusCode, erased.body).toBeLessThan(300);
    const remaining = [...early, ...late].filter((item) => item.user_id !== user(7));
    expect(await topUsers()).toEqual(expectedTop(remaining));
    await rollUpUsage(h.deps.store.db, new Date(h.clock.now().getTime() + 3 * DAY), [t.tenantId]);
    expect(await topUsers()).toEqual(expectedTop(remaining));
    // The roll-ups are what is read for the days they cover: emptied behind the service's back, those days count nothing.
    await sql`update usage_rollups set high_risk = ''::bytea where tenant_id = ${t.tenantId}`.execute(h.db);
    await sql`update usage_rollup_slots set high_risk = ''::bytea where tenant_id = ${t.tenantId}`.execute(h.db);
    expect(await topUsers()).toEqual([]);
  });
});
