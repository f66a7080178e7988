import { expectedRanking } from '../helpers/people-ranking.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, createInteraction, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const HOUR = 3_600_000;
const [ANA, BEN, CHLOE] = ['0190a0a0-0000-7000-8000-0000000000b1', '0190a0a0-0000-7000-8000-0000000000b2', '0190a0a0-0000-7000-8000-0000000000b3'];

interface Created { user_id: string | null; platform_id: string; risk_score: number; types: string[]; timestamp: string }

// GET /people/risk: the people ranked by score = high_risk + 2 violations + 5 sensitive types + 10 unsanctioned platforms.
describe.each(STORES)('people at risk [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  const created: Created[] = [];
  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    await createPolicy(h, t, { name: 'No cards', action: 'block', conditions: { classification_types: ['CREDIT_CARD'] } });
    await createPolicy(h, t, { name: 'Log all', action: 'log' }); // a log decision is no violation
    for (const [id, status] of [['openai', 'sanctioned'], ['deepseek', 'blocked']] as const) {
      const response = await h.call('PUT', `/api/v1/platforms/${id}/status`, { token: t.adminToken, body: { status } });
      expect(response.statusCode).toBe(200);
    }
    const key = await h.apiKey(t, ['interactions:write']);
    const plan: Array<[string | null, string, number, string[]]> = [
      [ANA, 'openai', 0.9, ['CREDIT_CARD', 'EMAIL']], [ANA, 'openai', 0.2, ['EMAIL']], [ANA, 'deepseek', 0.75, []],
      [BEN, 'openai', 0.1, []], [BEN, 'acme-notes-ai', 0.3, ['IBAN']], [BEN, 'acme-notes-ai', 0.7, []],
      [CHLOE, 'openai', 0.5, []], [null, 'deepseek', 0.99, ['CREDIT_CARD']],
    ];
    for (let round = 0; round < 2; round += 1) {
      for (const [user_id, platform_id, risk_score, types] of plan) {
        const response = await h.call('POST', '/api/v1/interactions', {
          token: key, body: interactionBody({ platform_id, risk_score, classifications: types.map((type) => classification(type)),
            ...(user_id ? { user_id } : {}) }),
        });
        expect(response.statusCode, response.body).toBe(201);
        created.push({ user_id, platform_id, risk_score, types, timestamp: response.json().timestamp });
        h.clock.advance(2 * HOUR + 7 * 60_000);
      }
    }
    h.clock.advance(-(2 * HOUR + 7 * 60_000) * created.length);
  });
  afterAll(async () => h.close());

  const ranking = async (query: Record<string, string | number> = {}, token = t.adminToken) => {
    const response = await h.call('GET', '/api/v1/people/risk', { token, query });
    expect(response.statusCode, response.body).toBe(200);
    return { body: response.json(), headers: response.headers };
  };
  /** The ranking counted here from what was created. */
  const expected = (start?: string, end?: string) => expectedRanking(created, start, end);


  it('ranks the people by their score, with the figures behind it, over the whole history and over periods', async () => {
    const { body } = await ranking();
    expect(body.people).toEqual(expected());
    expect(body.people.map((p: { user_id: string }) => p.user_id)).toEqual([ANA, BEN]); // Chloe only used the sanctioned app, safely
    expect(body).toMatchObject({ total: 2, next_cursor: null, start_date: null, end_date: null });
    const first = created[0]!.timestamp;
    for (const [start, end] of [[first, created[7]!.timestamp], [created[3]!.timestamp, undefined], [undefined, created[1]!.timestamp]]) {
      const query = { ...(start ? { start_date: start } : {}), ...(end ? { end_date: end } : {}) };
      expect((await ranking(query)).body.people, JSON.stringify(query)).toEqual(expected(start, end));
    }
  });

  it('pages like every list: limit, page numbers, headers and a cursor walk', async () => {
    const all = expected();
    const { body, headers } = await ranking({ limit: 1 });
    expect(body.people).toEqual(all.slice(0, 1));
    expect(headers).toMatchObject({ 'x-total-count': '2', 'x-page': '1', 'x-per-page': '1', 'x-total-pages': '2' });
    const next = await ranking({ limit: 1, cursor: body.next_cursor });
    expect(next.body).toMatchObject({ people: all.slice(1, 2), total: 2, next_cursor: null });
    expect((await ranking({ limit: 1, page: 2 })).body.people).toEqual(all.slice(1, 2));
    expect((await ranking({ limit: 1, page: 5 })).body).toMatchObject({ people: [], total: 2 });
    const otherPeriod = await h.call('GET', '/api/v1/people/risk', {
      token: t.adminToken, query: { limit: 1, cursor: body.next_cursor, start_date: created[0]!.timestamp },
    });
    expect([otherPeriod.statusCode, otherPeriod.json().details[0].path]).toEqual([400, 'query.cursor']);
    const tooMany = await h.call('GET', '/api/v1/people/risk', { token: t.adminToken, query: { limit: 501 } });
    expect([tooMany.statusCode, tooMany.json().details[0].path]).toEqual([400, 'query.limit']);
  });

  it('is read by viewers, not by API keys, and never without a token', async () => {
    const viewer = await h.user(t, 'viewer');
    expect((await ranking({}, viewer.token)).body.people).toEqual(expected());
    const key = await h.apiKey(t, ['interactions:read']);
    const forbidden = await h.call('GET', '/api/v1/people/risk', { token: key });
    expect([forbidden.statusCode, forbidden.json().code]).toEqual([403, 'forbidden']);
    const anonymous = await h.call('GET', '/api/v1/people/risk');
    expect([anonymous.statusCode, anonymous.json().code]).toEqual([401, 'unauthorized']);
  });

  it("shows another tenant none of this one's people", async () => {
    const other = await h.tenant('Other');
    expect((await ranking({}, other.adminToken)).body).toMatchObject({ people: [], total: 0 });
    await createInteraction(h, other, { platform_id: 'deepseek', user_id: BEN, risk_score: 0.2 });
    expect((await ranking({}, other.adminToken)).body.people)
      .toEqual([{ user_id: BEN, score: 10, high_risk: 0, violations: 0, sensitive_types: 0, unsanctioned_platforms: 1 }]);
    expect((await ranking()).body.people).toEqual(expected());
  });

  it('refuses dates that are no instant, and a start after the end, with 400 naming the parameter', async () => {
    for (const [query, path] of [
      [{ start_date: 'last week' }, 'query.start_date'],
      [{ start_date: '2026-03-02T00:00:00.000Z', end_date: '2026-03-01T00:00:00.000Z' }, 'query.start_date'],
    ] as const) {
      const response = await h.call('GET', '/api/v1/people/risk', { token: t.adminToken, query });
      expect(response.statusCode, JSON.stringify(query)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_error', error: expect.any(String) });
      expect(response.json().details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });
});
