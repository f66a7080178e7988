import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, interactionBody } from '../helpers/interactions-fixtures.js';
import { expected, type ListQuery as Query, type Stored } from '../helpers/interactions-lists.js';
import { STORES } from '../helpers/stores.js';

const U1 = '0190a0a0-0000-7000-8000-000000000001';
const U2 = '0190a0a0-0000-7000-8000-000000000002';

/** The seeded interactions, one minute apart, in creation order. */
const SEED = [
  { platform_id: 'openai', risk_score: 0.1, source: 'browser_extension', direction: 'outbound', user_id: U1, types: ['EMAIL'] },
  { platform_id: 'claude', risk_score: 0.9, source: 'proxy', direction: 'inbound', user_id: U2, types: ['PHONE', 'EMAIL'] },
  { platform_id: 'openai', risk_score: 0.5, source: 'api', direction: 'outbound', user_id: null, types: [] },
  { platform_id: 'gemini', risk_score: 0.5, source: 'endpoint_agent', direction: 'inbound', user_id: U1, types: ['CREDIT_CARD'] },
  { platform_id: 'claude', risk_score: 0, source: 'browser_extension', direction: 'outbound', user_id: U2, types: [] },
  { platform_id: 'openai', risk_score: 1, source: 'proxy', direction: 'outbound', user_id: U1, types: ['EMAIL'] },
  { platform_id: 'mistral', risk_score: 0.3, source: 'api', direction: 'inbound', user_id: null, types: ['IBAN'] },
] as const;

describe.each(STORES)('list interactions [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let seeded: Stored[];
  const list = (query: Query, token = t.adminToken) => h.call('GET', '/api/v1/interactions', { token, query });

  // The list tests only read, so they share one seeded tenant.
  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    seeded = [];
    try {
      for (const { types, ...fields } of SEED) {
        const body = interactionBody({ ...fields, classifications: types.map((type) => classification(type)) });
        const response = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body });
        seeded.push(response.json());
        h.clock.advance(60_000);
      }
    } finally {
      h.clock.reset();
    }
    const other = await h.tenant('Other');
    await h.call('POST', '/api/v1/interactions', { token: other.adminToken, body: interactionBody() });
  });
  afterAll(async () => h.close());

  it('returns the tenant\'s interactions newest first with {data, total, limit, offset} and the pagination headers', async () => {
    const response = await list({});
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.data.map((i: Stored) => i.id)).toEqual([...seeded].reverse().map((i) => i.id));
    expect(body.data[0]).toEqual(seeded.at(-1));
    expect(body).toMatchObject({ total: 7, limit: 50, offset: 0 });
    expect(response.headers).toMatchObject({ 'x-total-count': '7', 'x-page': '1', 'x-per-page': '50', 'x-total-pages': '1' });
  });

  const FILTERS: Array<[string, () => Query]> = [
    ['platform_id', () => ({ platform_id: 'openai' })],
    ['platform_id in another case, padded', () => ({ platform_id: ' Claude ' })],
    ['platform_id matching nothing', () => ({ platform_id: 'copilot' })],
    ['risk_score_min', () => ({ risk_score_min: 0.5 })],
    ['risk_score_max', () => ({ risk_score_max: 0.3 })],
    ['risk_score_min and max equal', () => ({ risk_score_min: 0.5, risk_score_max: 0.5 })],
    ['risk bounds 0 and 1', () => ({ risk_score_min: 0, risk_score_max: 1 })],
    ['classification_type', () => ({ classification_type: 'EMAIL' })],
    ['classification_type of one item', () => ({ classification_type: 'IBAN' })],
    ['source', () => ({ source: 'proxy' })],
    ['direction', () => ({ direction: 'inbound' })],
    ['user_id', () => ({ user_id: U1 })],
    ['start_date', () => ({ start_date: seeded[3]!.timestamp })],
    ['end_date', () => ({ end_date: seeded[2]!.timestamp })],
    ['start_date and end_date', () => ({ start_date: seeded[1]!.timestamp, end_date: seeded[4]!.timestamp })],
    ['platform_id + risk_score_min', () => ({ platform_id: 'openai', risk_score_min: 0.5 })],
    ['classification_type + direction', () => ({ classification_type: 'EMAIL', direction: 'outbound' })],
    ['source + user_id', () => ({ source: 'browser_extension', user_id: U2 })],
    ['user_id + classification_type + risk range', () => ({ user_id: U1, classification_type: 'EMAIL', risk_score_min: 0.2, risk_score_max: 1 })],
    ['dates + direction + source', () => ({ start_date: seeded[1]!.timestamp, end_date: seeded[6]!.timestamp, direction: 'inbound', source: 'api' })],
    ['every filter at once', () => ({ platform_id: 'openai', risk_score_min: 0.9, risk_score_max: 1, classification_type: 'EMAIL',
      source: 'proxy', direction: 'outbound', user_id: U1, start_date: seeded[0]!.timestamp, end_date: seeded[6]!.timestamp })],
  ];

  it.each(FILTERS)('filters by %s', async (_name, query) => {
    const response = await list(query());
    expect(response.statusCode, response.body).toBe(200);
    const want = expected(seeded, query());
    expect(response.json().data.map((i: Stored) => i.id)).toEqual(want);
    expect(response.json().total).toBe(want.length);
    expect(response.headers['x-total-count']).toBe(String(want.length));
  });

  it('finds at least one row for most filters (the seed covers them)', () => {
    const nonEmpty = FILTERS.filter(([, query]) => expected(seeded, query()).length > 0);
    expect(nonEmpty.length).toBeGreaterThanOrEqual(FILTERS.length - 1);
  });

  it.each(['timestamp', '-timestamp', 'risk_score', '-risk_score', 'platform_id', '-platform_id'])('sorts by %s', async (sort) => {
    const response = await list({ sort });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.map((i: Stored) => i.id)).toEqual(expected(seeded, { sort }));
  });

  it('sorts a filtered list', async () => {
    const query = { classification_type: 'EMAIL', sort: 'risk_score' };
    expect((await list(query)).json().data.map((i: Stored) => i.id)).toEqual(expected(seeded, query));
  });

  it('pages through the list with the right offsets and headers, and past the last page', async () => {
    const all = expected(seeded, { sort: 'risk_score' });
    const pages: string[] = [];
    for (let page = 1; page <= 4; page += 1) {
      const response = await list({ sort: 'risk_score', limit: 2, page });
      const body = response.json();
      expect(body).toMatchObject({ total: 7, limit: 2, offset: (page - 1) * 2 });
      expect(body.data).toHaveLength(page < 4 ? 2 : 1);
      expect(response.headers).toMatchObject({
        'x-total-count': '7', 'x-page': String(page), 'x-per-page': '2', 'x-total-pages': '4',
      });
      pages.push(...body.data.map((i: Stored) => i.id));
    }
    expect(pages).toEqual(all);
    const past = await list({ limit: 2, page: 5 });
    expect(past.statusCode).toBe(200);
    expect(past.json()).toEqual({ data: [], total: 7, limit: 2, offset: 8, next_cursor: null });
    expect(past.headers['x-total-pages']).toBe('4');
    const max = await list({ limit: 500 });
    expect(max.json().data).toHaveLength(7);
  });

  const INVALID: Array<[string, Query]> = [
    ['risk_score_min above 1', { risk_score_min: 1.5 }],
    ['risk_score_max below 0', { risk_score_max: -0.1 }],
    ['risk_score_min not a number', { risk_score_min: 'high' }],
    ['risk_score_min greater than risk_score_max', { risk_score_min: 0.8, risk_score_max: 0.2 }],
    ['limit above 500', { limit: 501 }],
    ['limit 0', { limit: 0 }],
    ['page 0', { page: 0 }],
    ['page negative', { page: -1 }],
    ['page not a number', { page: 'two' }],
    ['start_date not a date', { start_date: 'yesterday' }],
    ['end_date with month 13', { end_date: '2024-13-01T00:00:00Z' }],
    ['start_date after end_date', { start_date: '2024-02-01T00:00:00Z', end_date: '2024-01-01T00:00:00Z' }],
    ['unknown sort field', { sort: 'content_hash' }],
    ['unknown descending sort field', { sort: '-user_id' }],
    ['source unknown', { source: 'email' }],
    ['direction unknown', { direction: 'up' }],
    ['user_id not a UUID', { user_id: 'abc' }],
    ['platform_id not a platform id', { platform_id: '!!!' }],
    ['classification_type empty', { classification_type: '' }],
  ];

  it.each(INVALID)('refuses %s with 400 validation_error', async (_name, query) => {
    const response = await list(query);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().code).toBe('validation_error');
    expect(response.json().details[0].path).toMatch(/^query\./);
  });

  it('admits admins, viewers and read keys; refuses write-only keys and anonymous callers', async () => {
    const viewer = await h.user(t, 'viewer');
    const readKey = await h.apiKey(t, ['interactions:read']);
    const writeKey = await h.apiKey(t, ['interactions:write']);
    expect((await list({}, viewer.token)).json().total).toBe(7);
    expect((await list({}, readKey)).json().total).toBe(7);
    expect((await list({}, writeKey)).statusCode).toBe(403);
    const anonymous = await h.call('GET', '/api/v1/interactions');
    expect(anonymous.statusCode).toBe(401);
  });
});
