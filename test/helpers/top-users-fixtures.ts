import { expect } from 'vitest';
import type { Harness, TestTenant } from './harness.js';
import { interactionBody } from './interactions-fixtures.js';

/** The data of the stats' top users tests: who has how many interactions at or above 0.7, and when. */
export const HOUR = 60 * 60 * 1000;
export const DAY = 24 * HOUR;
export const user = (n: number) => `0190a0a0-0000-7000-8000-0000000000${String(n).padStart(2, '0')}`;

export interface Item { user_id: string | null; risk_score: number }

/** `high` interactions of the user at or above 0.7 and `low` below it, thresholds and their neighbours included. */
export function itemsOf(user_id: string | null, high: number, low: number): Item[] {
  const highScores = [0.7, 1, 0.7000000000000001, 0.95, 0.8];
  const lowScores = [0.6999999999999999, 0, 0.5, 0.69];
  return [
    ...Array.from({ length: high }, (_, i) => ({ user_id, risk_score: highScores[i % highScores.length]! })),
    ...Array.from({ length: low }, (_, i) => ({ user_id, risk_score: lowScores[i % lowScores.length]! })),
  ];
}

/** What top_users should be, counted in JavaScript from the items. */
export function expectedTop(items: Item[]) {
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

export async function createAll(h: Harness, tenant: TestTenant, items: Item[]) {
  const response = await h.call('POST', '/api/v1/interactions/batch', {
    token: tenant.adminToken, body: items.map((item) => interactionBody({ ...item })),
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json().stored).toBe(items.length);
}

/**
 * Twelve users with high-risk interactions, ties on 5, 3 and 2 (with the later ones) broken by
 * user_id, so two are left out, one of them tied with the tenth; `late` two hours after `early`,
 * from `lateStart`; and another tenant with the same users, never counted.
 */
export async function seedTopUsers(h: Harness, t: TestTenant): Promise<{ early: Item[]; late: Item[]; lateStart: string }> {
  const early = [
    ...itemsOf(user(3), 5, 1), ...itemsOf(user(7), 5, 4), ...itemsOf(user(1), 4, 0), ...itemsOf(user(12), 3, 2),
    ...itemsOf(user(2), 3, 0), ...itemsOf(user(5), 3, 7), ...itemsOf(user(4), 2, 1), ...itemsOf(user(6), 2, 0),
    ...itemsOf(user(10), 2, 0), ...itemsOf(user(9), 1, 3), ...itemsOf(user(8), 1, 1),
    // Only below the threshold; and high-risk interactions of no user.
    ...itemsOf(user(11), 0, 9), ...itemsOf(null, 12, 2),
  ];
  await createAll(h, t, early);
  h.clock.advance(2 * HOUR);
  // Later: user 11 gets high-risk interactions, user 3 low ones only.
  const late = [...itemsOf(user(11), 2, 1), ...itemsOf(user(3), 0, 3), ...itemsOf(user(8), 1, 0)];
  // Every later row is stored at or after this instant, every earlier one two hours before it.
  const lateStart = h.clock.now().toISOString();
  await createAll(h, t, late);
  h.clock.reset();
  await createAll(h, await h.tenant('Other'), [...itemsOf(user(11), 30, 0), ...itemsOf(user(3), 30, 5)]);
  return { early, late, lateStart };
}

/** `top_users` of `GET /stats` for the tenant, with the query given. */
export async function statsTopUsers(h: Harness, t: TestTenant, query: Record<string, string> = {}) {
  const response = await h.call('GET', '/api/v1/stats', { token: t.adminToken, query });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().top_users;
}
