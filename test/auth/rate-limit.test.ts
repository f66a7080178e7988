import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openStore } from '../../src/platform/store/store.js';
import { Harness } from '../helpers/harness.js';
import { testKeyring } from '../helpers/keyring.js';
import { clearOfWindowEnd, rateLimitHeaders } from '../helpers/rate-limit-windows.js';
import { STORES } from '../helpers/stores.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const LIMIT = 5;

describe.each(STORES)('rate limit per credential [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(async () => h.close());

  it('sends RateLimit-* on every answer, counting down; past the limit 429 with Retry-After and the error body', async () => {
    const t = await h.tenant();
    await clearOfWindowEnd(10_000);
    const answers = [];
    for (let i = 0; i < LIMIT + 2; i += 1) answers.push(await h.call('GET', '/api/v1/tenant', { token: t.adminToken }));

    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const headers = answers.map((a) => rateLimitHeaders(a.headers));
    expect(headers.map((x) => x.limit)).toEqual(Array(LIMIT + 2).fill(LIMIT));
    expect(headers.map((x) => x.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    for (const { reset } of headers) {
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
    }
    const limited = answers[LIMIT]!;
    expect(limited.json()).toEqual({ error: 'Too many requests for this token; slow down', code: 'rate_limited' });
    expect(limited.headers['content-type']).toMatch(/^application\/json/);
    expect(limited.headers['x-request-id']).toBeDefined();
    expect(Number(limited.headers['retry-after'])).toBe(headers[LIMIT]!.reset);
  });

  it('counts each user and each API key on its own; a refused or failed request counts too and carries the headers', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    await clearOfWindowEnd(10_000);
    const key = await h.apiKey(t, ['interactions:read']);

    const forbidden = await h.call('GET', '/api/v1/audit-log', { token: viewer.token });
    expect(forbidden.statusCode).toBe(403);
    expect(rateLimitHeaders(forbidden.headers)).toMatchObject({ limit: LIMIT, remaining: LIMIT - 1 });
    const missing = await h.call('GET', '/api/v1/policies/00000000-0000-4000-8000-000000000000', { token: viewer.token });
    expect(missing.statusCode).toBe(404);
    expect(rateLimitHeaders(missing.headers)).toMatchObject({ remaining: LIMIT - 2 });
    const invalid = await h.call('GET', '/api/v1/interactions', { token: viewer.token, query: { limit: 0 } });
    expect(invalid.statusCode).toBe(400);
    expect(rateLimitHeaders(invalid.headers)).toMatchObject({ remaining: LIMIT - 3 });

    // Another session of the same user shares its count; the API key and the admin have their own.
    const again = await h.login(viewer.email, 'Correct-Horse-42');
    expect(rateLimitHeaders((await h.call('GET', '/api/v1/tenant', { token: again })).headers).remaining).toBe(LIMIT - 4);
    expect(rateLimitHeaders((await h.call('GET', '/api/v1/interactions', { token: key })).headers).remaining).toBe(LIMIT - 1);
    // The admin made the key: its second request.
    expect(rateLimitHeaders((await h.call('GET', '/api/v1/tenant', { token: t.adminToken })).headers).remaining).toBe(LIMIT - 2);
  });

  it('neither counts nor marks what is not authenticated: public routes, 401s, unknown routes', async () => {
    const answers = [
      await h.call('GET', '/api/v1/version'),
      await h.call('GET', '/api/v1/openapi.json'),
      await h.call('GET', '/api/v1/tenant'),
      await h.call('GET', '/api/v1/tenant', { token: 'ugt_unknown' }),
      await h.call('GET', '/api/v1/no-such-route'),
      await h.call('POST', '/api/v1/auth/login', { body: { email: 'nobody@nowhere.test', password: 'Wrong-password-1' } }),
      await h.call('GET', '/healthz'),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 401, 401, 404, 401, 200]);
    for (const answer of answers) expect(rateLimitHeaders(answer.headers)).toEqual({ limit: undefined, remaining: undefined, reset: undefined });
    await h.db.deleteFrom('login_failures').execute();
  });
});

// Off, nothing is counted anywhere: the embedded store is enough.
describe('rate limit off (RATE_LIMIT_PER_MINUTE=0)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start('pglite', { env: { RATE_LIMIT_PER_MINUTE: '0' } });
  });
  afterAll(async () => h.close());

  it('never answers 429 and sends no RateLimit-* headers', async () => {
    const t = await h.tenant();
    for (let i = 0; i < 20; i += 1) {
      const answer = await h.call('GET', '/api/v1/tenant', { token: t.adminToken });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['ratelimit-limit']).toBeUndefined();
      expect(answer.headers['ratelimit-remaining']).toBeUndefined();
    }
  });
});

// Only a server can go away while the service runs: PostgreSQL only.
describe.skipIf(!process.env.TEST_DATABASE_URL)('rate limit with the store unreachable [postgres]', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start('postgres', { env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(async () => h.close());

  it('answers 503 unavailable, as any store outage, rather than letting the request through uncounted', async () => {
    const t = await h.tenant();
    const target = new URL(h.databaseUrl!);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const viaProxy = new URL(h.databaseUrl!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const store = await openStore({ databaseUrl: viaProxy.toString(), poolSize: 2, poolTimeoutMs: 1000 });
    const app = await buildApp({ ...h.deps, store, lifecycle: { migrated: true, shuttingDown: false }, keyring: testKeyring(store.db) });
    try {
      // An invalid create reads nothing but the count once its credential is cached: it is refused
      // by validation (400) when counted, so a 503 can only come from counting.
      const create = () => app.inject({
        method: 'POST', url: '/api/v1/interactions', payload: {}, headers: { authorization: `Bearer ${t.adminToken}` },
      });
      await clearOfWindowEnd(10_000);
      const counted = await create();
      expect(counted.statusCode).toBe(400);
      expect(rateLimitHeaders(counted.headers).remaining).toBe(LIMIT - 1);

      await proxy.cut();
      const down = await create();
      expect(down.statusCode).toBe(503);
      expect(down.json()).toMatchObject({ code: 'unavailable' });
      expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);

      await proxy.restore();
      await expect.poll(async () => (await create()).statusCode, { timeout: 10_000 }).toBe(400);
    } finally {
      await app.close();
      await store.close();
      await proxy.stop();
    }
  });
});
