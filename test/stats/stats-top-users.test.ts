import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { HOUR, type Item, createAll, expectedTop, itemsOf, seedTopUsers, statsTopUsers, user } from '../helpers/top-users-fixtures.js';

describe.each(STORES)('stats top users [%s]', (kind) => {
  let h: Harness;
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
    await createAll(h, quiet, itemsOf(user(1), 0, 4));
    const response = await h.call('GET', '/api/v1/stats', { token: quiet.adminToken });
    expect(response.json().top_users).toEqual([]);
  });
});
