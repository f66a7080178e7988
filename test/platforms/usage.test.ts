import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactCounts } from '../../src/modules/counts/compaction.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createInteraction, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const HOUR = 3_600_000;
const USERS = ['0190a0a0-0000-7000-8000-0000000000a1', '0190a0a0-0000-7000-8000-0000000000a2', '0190a0a0-0000-7000-8000-0000000000a3'];

type Usage = { platform_id: string; interactions: number; users: number; high_risk: number; first_seen: string; last_seen: string; status: string };

// GET /platforms/usage: each platform's figures over a period equal what the interactions list
// counts over the same bounds, whether the counts are folded or not.
describe.each(STORES)('platform usage [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  const created: Array<{ platform_id: string; user_id: string | null; risk_score: number; timestamp: string }> = [];
  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    // Three platforms over ~3 days, at hours and minutes that leave partial hours at any range's ends.
    const plan: Array<[string, string | null, number]> = [
      ['openai', USERS[0]!, 0.1], ['openai', USERS[1]!, 0.7], ['openai', null, 0.95], ['openai', USERS[0]!, 0.69],
      ['deepseek', USERS[2]!, 0.8], ['deepseek', USERS[2]!, 0.3], ['acme-notes-ai', USERS[1]!, 0.71],
    ];
    // By an API key, which does not expire as the clock moves; the clock is moved back after.
    const key = await h.apiKey(t, ['interactions:write']);
    const step = 3 * HOUR + 17 * 60_000;
    for (let round = 0; round < 3; round += 1) {
      for (const [platform_id, user_id, risk_score] of plan) {
        const response = await h.call('POST', '/api/v1/interactions', {
          token: key, body: interactionBody({ platform_id, risk_score, ...(user_id ? { user_id } : {}) }),
        });
        expect(response.statusCode, response.body).toBe(201);
        created.push({ platform_id, user_id, risk_score, timestamp: response.json().timestamp });
        h.clock.advance(step);
      }
    }
    h.clock.advance(-step * created.length);
    const status = await h.call('PUT', '/api/v1/platforms/deepseek/status', { token: t.adminToken, body: { status: 'blocked' } });
    expect(status.statusCode).toBe(200);
  });
  afterAll(async () => h.close());

  const usage = async (query: Record<string, string> = {}, token = t.adminToken) => {
    const response = await h.call('GET', '/api/v1/platforms/usage', { token, query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { platforms: Usage[]; total: number; start_date: string | null; end_date: string | null };
  };
  const listTotal = async (query: Record<string, string | number>) => {
    const response = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { ...query, limit: 1 } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().total as number;
  };
  /** The expected figures, counted here from what was created. */
  const expected = (start?: string, end?: string) => {
    const inRange = created.filter((c) => (!start || c.timestamp >= start) && (!end || c.timestamp <= end));
    const ids = [...new Set(inRange.map((c) => c.platform_id))];
    return ids.map((id) => {
      const rows = inRange.filter((c) => c.platform_id === id);
      const times = rows.map((c) => c.timestamp).sort();
      return {
        platform_id: id, interactions: rows.length, users: new Set(rows.map((c) => c.user_id).filter(Boolean)).size,
        high_risk: rows.filter((c) => c.risk_score >= 0.7).length, first_seen: times[0], last_seen: times.at(-1),
        status: id === 'deepseek' ? 'blocked' : 'unsanctioned',
      };
    }).sort((a, b) => b.interactions - a.interactions || (a.platform_id < b.platform_id ? -1 : 1));
  };
  const shift = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

  it('gives each platform the figures of the interactions list over the same bounds, before and after the counts are folded', async () => {
    const first = created[0]!.timestamp;
    const last = created.at(-1)!.timestamp;
    const ranges: Array<[string | undefined, string | undefined]> = [
      [undefined, undefined], [first, last], [shift(first, 1), shift(last, -1)], [shift(first, 5 * HOUR + 1234), shift(last, -7 * HOUR)],
      [shift(first, 26 * HOUR), undefined], [undefined, shift(first, 10 * HOUR)], [created[4]!.timestamp, created[4]!.timestamp],
    ];
    for (const folded of [false, true]) {
      if (folded) while (await compactCounts(h.db) > 0) { /* until every delta is folded */ }
      for (const [start, end] of ranges) {
        const query = { ...(start ? { start_date: start } : {}), ...(end ? { end_date: end } : {}) };
        const body = await usage(query);
        expect(body.platforms, JSON.stringify(query)).toEqual(expected(start, end));
        expect(body.total).toBe(body.platforms.length);
        expect([body.start_date, body.end_date]).toEqual([start ?? null, end ?? null]);
        for (const platform of body.platforms) {
          expect(platform.interactions).toBe(await listTotal({ ...query, platform_id: platform.platform_id }));
          expect(platform.high_risk).toBe(await listTotal({ ...query, platform_id: platform.platform_id, risk_score_min: 0.7 }));
        }
      }
    }
  });

  it('lists nothing for a period without interactions', async () => {
    expect(await usage({ start_date: '2020-01-01T00:00:00.000Z', end_date: '2020-01-31T00:00:00.000Z' }))
      .toEqual({ start_date: '2020-01-01T00:00:00.000Z', end_date: '2020-01-31T00:00:00.000Z', platforms: [], total: 0 });
  });

  it('is read by viewers, not by API keys, and never without a token', async () => {
    const viewer = await h.user(t, 'viewer');
    expect((await usage({}, viewer.token)).platforms).toEqual(expected());
    const key = await h.apiKey(t, ['interactions:read']);
    const forbidden = await h.call('GET', '/api/v1/platforms/usage', { token: key });
    expect([forbidden.statusCode, forbidden.json().code]).toEqual([403, 'forbidden']);
    const anonymous = await h.call('GET', '/api/v1/platforms/usage');
    expect([anonymous.statusCode, anonymous.json().code]).toEqual([401, 'unauthorized']);
  });

  it("shows another tenant nothing of this one's use", async () => {
    const other = await h.tenant('Other');
    expect((await usage({}, other.adminToken)).platforms).toEqual([]);
    await createInteraction(h, other, { platform_id: 'openai', user_id: USERS[0], risk_score: 0.9 });
    expect((await usage({}, other.adminToken)).platforms).toMatchObject([{ platform_id: 'openai', interactions: 1, users: 1, high_risk: 1 }]);
    expect((await usage()).platforms).toEqual(expected());
  });

  it('refuses dates that are no instant, and a start after the end, with 400 naming the parameter', async () => {
    for (const [query, path] of [
      [{ start_date: 'yesterday' }, 'query.start_date'],
      [{ end_date: '2026-02-30T00:00:00Z' }, 'query.end_date'],
      [{ start_date: '2026-03-02T00:00:00.000Z', end_date: '2026-03-01T00:00:00.000Z' }, 'query.start_date'],
    ] as const) {
      const response = await h.call('GET', '/api/v1/platforms/usage', { token: t.adminToken, query });
      expect(response.statusCode, JSON.stringify(query)).toBe(400);
      const body = response.json();
      expect(body).toMatchObject({ code: 'validation_error', error: expect.any(String) });
      expect(body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });
});
