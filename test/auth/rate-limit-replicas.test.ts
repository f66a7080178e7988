import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, ServiceProcess } from '../helpers/process.js';
import { clearOfWindowEnd, rateLimitHeaders } from '../helpers/rate-limit-windows.js';
import { createPostgresDatabase } from '../helpers/stores.js';

const ADMIN = { email: 'admin@replicas.test', password: 'Replica-Password-42' };
const LIMIT = 100;
const LOGIN_MAX_FAILURES = 4;

// Two service processes on one PostgreSQL database, as two replicas behind a balancer: the limits
// they enforce are counted in the database, so together they let through no more than one.
describe.skipIf(!process.env.TEST_DATABASE_URL)('limits shared by two replicas [postgres]', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  const bases: string[] = [];
  beforeAll(async () => {
    const database = await createPostgresDatabase();
    cleanups.push(() => database.drop());
    const bootstraps: Record<string, string>[] = [{ BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password }, {}];
    for (const bootstrap of bootstraps) {
      const port = await freePort();
      const service = ServiceProcess.start(['serve'], {
        DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SERVE_WORKERS: 'false',
        RATE_LIMIT_PER_MINUTE: String(LIMIT), LOGIN_MAX_FAILURES: String(LOGIN_MAX_FAILURES), ...bootstrap,
      });
      cleanups.push(() => service.stop('SIGKILL'));
      const base = `http://127.0.0.1:${port}`;
      await service.waitUntilReady(`${base}/readyz`, 60_000);
      bases.push(base);
    }
  }, 180_000);
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const login = (base: string, password: string) => fetch(`${base}/api/v1/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN.email, password }),
  });

  // Up to 30 s of waiting for a fresh window, then the requests.
  it('lets exactly the limit through, one credential sending twice the limit at once to both', { timeout: 120_000 }, async () => {
    const { token } = await (await login(bases[0]!, ADMIN.password)).json() as { token: string };
    await clearOfWindowEnd(30_000);
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 2 * LIMIT }, async (_, i) => {
      const response = await fetch(`${bases[i % 2]}/api/v1/tenant`, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, headers: response.headers, body: await response.json() as Record<string, unknown> };
    }));
    // All in one window: the count would start again in the next.
    expect(Date.now() - started).toBeLessThan(30_000);

    // Counted per process, each replica would have let its 100 through. Which replica's requests
    // pass is a race; together they pass the limit, each with its own place in the shared count.
    const passed = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(passed).toHaveLength(LIMIT);
    expect(limited).toHaveLength(LIMIT);
    expect(passed.map((a) => rateLimitHeaders(a.headers).remaining).sort((a, b) => a! - b!))
      .toEqual(Array.from({ length: LIMIT }, (_, i) => i));
    for (const answer of limited) {
      const headers = rateLimitHeaders(answer.headers);
      expect(headers).toMatchObject({ limit: LIMIT, remaining: 0 });
      expect(headers.reset).toBeGreaterThanOrEqual(1);
      expect(Number(answer.headers.get('retry-after'))).toBe(headers.reset);
      expect(answer.body).toEqual({ error: 'Too many requests for this token; slow down', code: 'rate_limited' });
    }
  });

  it('throttles an account whose failed logins are spread over both replicas', async () => {
    for (let i = 0; i < LOGIN_MAX_FAILURES; i += 1) {
      expect((await login(bases[i % 2]!, 'Wrong-password-1')).status).toBe(401);
    }
    for (const base of bases) {
      const throttled = await login(base, ADMIN.password);
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});
