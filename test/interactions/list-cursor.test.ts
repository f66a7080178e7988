import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, interactionBody } from '../helpers/interactions-fixtures.js';
import { cursorJson, cursorOf, expected, type ListQuery, type Stored, walkList } from '../helpers/interactions-lists.js';
import { STORES } from '../helpers/stores.js';

const U1 = '0190a0a0-0000-7000-8000-000000000001';
const U2 = '0190a0a0-0000-7000-8000-000000000002';
const SORTS = ['timestamp', '-timestamp', 'risk_score', '-risk_score', 'platform_id', '-platform_id'] as const;
const PLATFORMS = ['openai', 'claude', 'gemini', 'mistral'];
const SOURCES = ['browser_extension', 'proxy', 'endpoint_agent', 'api'];

/** Item n of a seed: few distinct values, so every sort has long runs of ties. */
function seedItem(n: number) {
  return interactionBody({
    platform_id: PLATFORMS[n % 4], risk_score: [0, 0.25, 0.5, 1][(n * 7) % 4], source: SOURCES[(n * 3) % 4],
    direction: n % 3 ? 'outbound' : 'inbound', user_id: [U1, U2, null][n % 3],
    classifications: n % 5 === 0 ? [] : [classification(n % 2 ? 'EMAIL' : 'IBAN')],
  });
}

/** Posts batches (one timestamp per batch) a second apart; returns every stored interaction. */
async function seedBatches(h: Harness, t: TestTenant, batches: number, size: number): Promise<Stored[]> {
  try {
    for (let b = 0; b < batches; b += 1) {
      const body = Array.from({ length: size }, (_, i) => seedItem(b * size + i));
      const response = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body });
      expect(response.json().stored).toBe(size);
      h.clock.advance(1000);
    }
  } finally {
    h.clock.reset();
  }
  const all = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { limit: 500 } });
  return all.json().data;
}

describe.each(STORES)('list interactions by cursor [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let seeded: Stored[];
  const list = (query: ListQuery, token = t.adminToken) => h.call('GET', '/api/v1/interactions', { token, query });
  const walk = (query: ListQuery, limitOf: (page: number) => number, token = t.adminToken) =>
    walkList(h, '/api/v1/interactions', token, query, limitOf, 'data');
  const cursorFor = async (query: ListQuery) => {
    const response = await list({ limit: 3, ...query });
    expect(response.json().next_cursor).toEqual(expect.any(String));
    return response.json().next_cursor as string;
  };

  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    seeded = await seedBatches(h, t, 5, 12);
    const other = await h.tenant('Other');
    await h.call('POST', '/api/v1/interactions', { token: other.adminToken, body: interactionBody() });
  });
  afterAll(async () => h.close());

  it.each(SORTS)('walks sort=%s by next_cursor: every row once, in the list\'s order, though batches share a timestamp', async (sort) => {
    const { ids, pages } = await walk({ sort }, () => 7);
    expect(ids).toEqual(expected(seeded, { sort }));
    expect(pages).toHaveLength(Math.ceil(60 / 7));
    pages.forEach((page, n) => {
      expect(page.body).toMatchObject({ total: 60, limit: 7, offset: n * 7 });
      expect(page.headers).toMatchObject({ 'x-total-count': '60', 'x-page': String(n + 1), 'x-per-page': '7', 'x-total-pages': '9' });
    });
  });

  it('walks random filters, sorts and limits (changing between pages) as the in-memory list orders them', async () => {
    const timestamps = [...new Set(seeded.map((i) => i.timestamp))].sort();
    const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
    const queries = fc.record({
      sort: fc.constantFrom(...SORTS),
      platform_id: maybe(fc.constantFrom('openai', 'Claude', ' GEMINI ')),
      risk_score_min: maybe(fc.constantFrom(0, 0.25, 0.5)),
      risk_score_max: maybe(fc.constantFrom(0.5, 1)),
      classification_type: maybe(fc.constantFrom('EMAIL', 'IBAN')),
      source: maybe(fc.constantFrom(...SOURCES)),
      direction: maybe(fc.constantFrom('outbound', 'inbound')),
      user_id: maybe(fc.constantFrom(U1, U2.toUpperCase())),
      start_date: maybe(fc.constantFrom(...timestamps.slice(0, 3))),
      end_date: maybe(fc.constantFrom(...timestamps.slice(2))),
    }).map((query) => Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as ListQuery);
    await fc.assert(fc.asyncProperty(queries, fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 }),
      async (query, limits) => {
        const want = expected(seeded, query);
        const { ids, pages } = await walk(query, (n) => limits[n % limits.length]!);
        expect(ids).toEqual(want);
        let offset = 0;
        for (const page of pages) {
          expect(page.body).toMatchObject({ total: want.length, offset });
          expect(page.headers['x-page']).toBe(String(Math.floor(offset / page.body.limit) + 1));
          offset += page.ids.length;
        }
      }), { numRuns: 30 });
  });

  it('continues a page-numbered walk by cursor, from where the page ended', async () => {
    const all = expected(seeded, { sort: 'risk_score' });
    const second = await list({ sort: 'risk_score', limit: 5, page: 2 });
    expect(second.json().data.map((i: Stored) => i.id)).toEqual(all.slice(5, 10));
    const next = await list({ sort: 'risk_score', limit: 4, cursor: second.json().next_cursor });
    expect(next.json()).toMatchObject({ total: 60, limit: 4, offset: 10 });
    expect(next.json().data.map((i: Stored) => i.id)).toEqual(all.slice(10, 14));
    expect(next.headers).toMatchObject({ 'x-page': '3', 'x-per-page': '4', 'x-total-pages': '15' });
  });

  it('links the next page with the same query (page dropped), usable as is; no link and a null cursor on the last page', async () => {
    const query = { platform_id: ' Claude ', start_date: '2000-01-01T00:00:00+00:00', sort: '-risk_score', limit: 4, page: 1 };
    const want = expected(seeded, { ...query, start_date: '2000-01-01T00:00:00.000Z' });
    const first = await list(query);
    const link = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link));
    expect(link, String(first.headers.link)).not.toBeNull();
    const url = new URL(link![1]!, 'http://x');
    expect(url.pathname).toBe('/api/v1/interactions');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      platform_id: ' Claude ', start_date: '2000-01-01T00:00:00+00:00', sort: '-risk_score', limit: '4',
      cursor: first.json().next_cursor,
    });
    const ids: string[] = first.json().data.map((i: Stored) => i.id);
    let response = await h.call('GET', link![1]!, { token: t.adminToken });
    for (;;) {
      expect(response.statusCode, response.body).toBe(200);
      ids.push(...response.json().data.map((i: Stored) => i.id));
      if (!response.headers.link) break;
      response = await h.call('GET', /^<([^>]+)>/.exec(String(response.headers.link))![1]!, { token: t.adminToken });
    }
    expect(ids).toEqual(want);
    expect(response.json().next_cursor).toBeNull();
  });

  it('knows the last page without counting: a full last page has no next cursor', async () => {
    const whole = await list({ limit: 60 });
    expect(whole.json().data).toHaveLength(60);
    expect(whole.json().next_cursor).toBeNull();
    expect(whole.headers.link).toBeUndefined();
    const half = await list({ limit: 30 });
    const rest = await list({ limit: 30, cursor: half.json().next_cursor });
    expect(rest.json().data).toHaveLength(30);
    expect(rest.json().next_cursor).toBeNull();
    expect((await list({ limit: 10, page: 7 })).json()).toMatchObject({ data: [], next_cursor: null });
  });

  it('accepts a cursor for the same filters written differently (normalised like the filters)', async () => {
    const cursor = await cursorFor({ platform_id: 'OpenAI', user_id: U1.toUpperCase(), risk_score_max: 1 });
    const response = await list({ platform_id: 'openai ', user_id: U1, risk_score_max: '1.0', limit: 3, cursor });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.map((i: Stored) => i.id))
      .toEqual(expected(seeded, { platform_id: 'openai', user_id: U1 }).slice(3, 6));
  });

  it('admits viewers and read keys through a walk; refuses write-only keys (403) and anonymous callers (401)', async () => {
    const viewer = await h.user(t, 'viewer');
    const readKey = await h.apiKey(t, ['interactions:read']);
    const writeKey = await h.apiKey(t, ['interactions:write']);
    expect((await walk({}, () => 25, viewer.token)).ids).toEqual(expected(seeded, {}));
    expect((await walk({}, () => 25, readKey)).ids).toEqual(expected(seeded, {}));
    const cursor = await cursorFor({});
    expect((await list({ cursor }, writeKey)).statusCode).toBe(403);
    const anonymous = await h.call('GET', '/api/v1/interactions', { query: { cursor } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('unauthorized');
  });

  describe('refuses a bad cursor with 400 validation_error on query.cursor', () => {
    let valid: string;
    beforeAll(async () => {
      valid = await cursorFor({ sort: '-risk_score' });
    });
    const tampered = (change: (json: Record<string, any>) => void) => () => {
      const json = cursorJson(valid);
      change(json);
      return cursorOf(json);
    };
    const CASES: Array<[string, () => string | Promise<string>, ListQuery?]> = [
      ['garbage', () => 'not a cursor!'],
      ['truncated', () => valid.slice(0, -3)],
      ['one character more', () => `${valid}A`],
      ['base64url of text that is not JSON', () => cursorOf('{"v":1,')],
      ['JSON that is no object', () => cursorOf([1, 2])],
      ['another version', tampered((json) => { json.v = 2; })],
      ['a missing field', tampered((json) => { delete json.o; })],
      ['an extra field', tampered((json) => { json.x = 1; })],
      ['a negative offset', tampered((json) => { json.o = -1; })],
      ['a fractional offset', tampered((json) => { json.o = 1.5; })],
      ['an offset beyond safe integers', tampered((json) => { json.o = 2 ** 60; })],
      ['a risk score above 1', tampered((json) => { json.k[0] = 2; })],
      ['a risk score as a string', tampered((json) => { json.k[0] = '0.5'; })],
      ['a timestamp that is no instant', tampered((json) => { json.k[1] = 'yesterday'; })],
      ['a timestamp on 31 February', tampered((json) => { json.k[1] = '2024-02-31T00:00:00.000000Z'; })],
      ['an id that is no UUID', tampered((json) => { json.k[2] = 'abc'; })],
      ['a key too few', tampered((json) => { json.k.pop(); })],
      ['another fingerprint', tampered((json) => { json.f = 'AAAAAAAAAAAAAAAA'; })],
      ['a cursor of another sort', () => valid, { sort: 'risk_score' }],
      ['a cursor of the default sort', () => valid, {}],
      ['a cursor of other filters', () => valid, { sort: '-risk_score', platform_id: 'openai' }],
      ['a cursor of other dates', async () => cursorFor({ start_date: '2000-01-01T00:00:00Z' }), { start_date: '2000-01-01T00:00:01Z' }],
      ['a cursor with page', () => valid, { sort: '-risk_score', page: 1 }],
      ['a cursor over 1024 characters', () => 'A'.repeat(1025)],
    ];
    it.each(CASES)('%s', async (_name, cursor, query = { sort: '-risk_score' }) => {
      const response = await list({ ...query, cursor: await cursor() });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toEqual({ error: expect.stringContaining('query.cursor'), code: 'validation_error',
        details: [{ path: 'query.cursor', message: expect.any(String) }] });
    });
  });
});

describe.each(STORES)('list interactions by cursor, the walk\'s stability [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  it('walks rows stored in one millisecond each once (ties broken by id); the store keeps whole milliseconds', async () => {
    const t = await h.tenant();
    await seedBatches(h, t, 1, 30);
    // A batch's rows share one timestamp; sub-millisecond timestamps are refused (interactions_timestamp_ms).
    await expect(sql`update interactions set timestamp = timestamp + interval '1 microsecond'
      where tenant_id = ${t.tenantId}`.execute(h.db)).rejects.toThrow(/interactions_timestamp_ms/);
    for (const sort of ['-timestamp', 'timestamp']) {
      const direction = sort === 'timestamp' ? sql`asc` : sql`desc`;
      const stored = await sql<{ id: string }>`select id from interactions where tenant_id = ${t.tenantId}
        order by timestamp ${direction}, id ${direction}`.execute(h.db);
      const { ids } = await walkList(h, '/api/v1/interactions', t.adminToken, { sort }, () => 4, 'data');
      expect(ids).toEqual(stored.rows.map((row) => row.id));
    }
  });

  it.each(SORTS)('walks sort=%s while batches are stored: every earlier row once, no row twice', async (sort) => {
    const t = await h.tenant();
    const before = (await seedBatches(h, t, 4, 15)).map((i) => i.id);
    let writing = true;
    let batchesStored = 0;
    let batchesStoredDuringWalk = 0;
    const writer = (async () => {
      for (let n = 0; writing && n < 100; n += 1) {
        const body = Array.from({ length: 5 }, (_, i) => seedItem(n * 5 + i + 1));
        const response = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body });
        expect(response.statusCode).toBe(200);
        batchesStored += 1;
        if (writing) batchesStoredDuringWalk += 1;
      }
    })();
    // Each page waits for one more stored batch, so that rows arrive between (and during) the reads.
    const writerAhead = async (page: number) => {
      while (batchesStored < page && batchesStored < 100) await new Promise((resolve) => setTimeout(resolve, 1));
    };
    const { ids } = await walkList(h, '/api/v1/interactions', t.adminToken, { sort }, (n) => 3 + (n % 5), 'data', writerAhead);
    writing = false;
    await writer;
    expect(batchesStoredDuringWalk).toBeGreaterThan(5);
    expect(new Set(ids).size).toBe(ids.length);
    const visited = new Set(ids);
    expect(before.filter((id) => !visited.has(id))).toEqual([]);
  });
});
