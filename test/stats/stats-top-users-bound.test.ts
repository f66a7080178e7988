import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Harness as TestHarness, TestTenant } from '../helpers/harness.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

// The bound is 200,000 high-risk interactions in the range; 5 here, so that a test can cross it.
// Test files share their worker's modules (vitest.config.ts), which may already hold the real
// constant: the app is loaded anew for this file, with the mock, and without it after the file.
const TOP_USERS_MODULE = '../../src/modules/stats/stats.top-users.js';
vi.resetModules();
vi.doMock(TOP_USERS_MODULE, async (original) => ({
  ...await original<typeof import('../../src/modules/stats/stats.top-users.js')>(),
  TOP_USERS_MAX_HIGH_RISK: 5,
}));
const { Harness } = await import('../helpers/harness.js');
afterAll(() => {
  vi.doUnmock(TOP_USERS_MODULE);
  vi.resetModules();
});

const HOUR = 60 * 60 * 1000;
const USER = '0190a0a0-0000-7000-8000-000000000001';

describe.each(STORES)('stats top users past their bound [%s]', (kind) => {
  let h: TestHarness;
  let t: TestTenant;
  let later: string;

  async function create(items: Array<Record<string, unknown>>) {
    const response = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items.map(interactionBody) });
    expect(response.json().stored).toBe(items.length);
  }

  async function topUsers(query: Record<string, string> = {}) {
    const response = await h.call('GET', '/api/v1/stats', { token: t.adminToken, query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().top_users;
  }

  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    // Five high-risk interactions (two without a user: they count toward the bound), and low ones.
    await create([0.7, 0.9, 1, 0.75, 0.8].map((risk_score, i) => ({ risk_score, user_id: i < 3 ? USER : undefined })));
    await create([0, 0.5, 0.6999].map((risk_score) => ({ risk_score, user_id: USER })));
    h.clock.advance(2 * HOUR);
    later = h.clock.now().toISOString();
    await create([{ risk_score: 0.7, user_id: USER }]);
    h.clock.reset();
  });
  afterAll(async () => h.close());

  it('lists the top users up to the bound, and is null past it', async () => {
    expect(await topUsers({ end_date: new Date(Date.parse(later) - 1).toISOString() }))
      .toEqual([{ user_id: USER, high_risk: 3, total: 6 }]);
    expect(await topUsers()).toBeNull();
    expect(await topUsers({ start_date: later })).toEqual([{ user_id: USER, high_risk: 1, total: 1 }]);
    // The rest of the stats are there whatever the bound.
    const body = (await h.call('GET', '/api/v1/stats', { token: t.adminToken })).json();
    expect(body.interactions.total).toBe(9);
  });
});
