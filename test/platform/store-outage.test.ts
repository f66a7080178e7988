import { describe, expect, it } from 'vitest';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { ServiceProcess, freePort } from '../helpers/process.js';
import { STORES, createPostgresDatabase } from '../helpers/stores.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const PASSWORD = 'Outage-Admin-42';

/** Creates interactions on `loops` connections until `stop()`; collects every answer. */
function load(base: string, token: string, loops: number) {
  const answers: Array<{ status: number; retryAfter: string | null; code?: string; phase: string }> = [];
  let running = true;
  let phase = 'before';
  const loop = async () => {
    while (running) {
      const current = phase;
      const response = await fetch(`${base}/api/v1/interactions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(interactionBody()),
      });
      const body = (await response.json()) as { code?: string };
      answers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), code: body.code, phase: current });
    }
  };
  const done = Promise.all(Array.from({ length: loops }, loop));
  return {
    answers,
    setPhase: (next: string) => (phase = next),
    stop: async () => {
      running = false;
      await done;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(STORES.includes('postgres'))('a PostgreSQL outage under load [postgres]', () => {
  it('answers only 503 with Retry-After while the database is gone, logs a few warn lines, and recovers', async () => {
    const database = await createPostgresDatabase();
    const target = new URL(database.url);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const viaProxy = new URL(database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(['serve'], {
      DATABASE_URL: viaProxy.toString(), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
      BOOTSTRAP_ADMIN_EMAIL: 'admin@outage.test', BOOTSTRAP_ADMIN_PASSWORD: PASSWORD, DATABASE_POOL_TIMEOUT_MS: '1000',
    });
    try {
      await service.waitUntilReady(`${base}/readyz`);
      const login = await fetch(`${base}/api/v1/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@outage.test', password: PASSWORD }),
      });
      const { token } = (await login.json()) as { token: string };
      const logBefore = service.output.length;

      const traffic = load(base, token, 8);
      await sleep(1000);
      traffic.setPhase('outage');
      await proxy.cut(); // connections die mid-query, mid-transaction and mid-rollback; new ones are refused
      await sleep(2500);
      await proxy.restore();
      traffic.setPhase('after');
      await expect.poll(async () => (await fetch(`${base}/readyz`)).status, { timeout: 15_000 }).toBe(200);
      await sleep(1500);
      await traffic.stop();

      const { answers } = traffic;
      const unexpected = answers.filter((a) => a.status !== 201 && !(a.status === 503 && a.code === 'unavailable' && a.retryAfter));
      expect(unexpected).toEqual([]);
      expect(answers.filter((a) => a.phase === 'outage' && a.status === 503).length).toBeGreaterThan(0);
      expect(answers.filter((a) => a.phase === 'after' && a.status === 201).length).toBeGreaterThan(0);

      await expect.poll(() => service.logLines('store available again').length, { timeout: 10_000 }).toBe(1);
      const lines = service.output.slice(logBefore).split('\n').filter((line) => line.trim() !== '');
      expect(lines.length).toBeLessThanOrEqual(10);
      expect(lines.join('\n')).not.toMatch(/"stack"|\n\s+at /);
      expect(service.logLines('store unavailable: requests get 503 until it answers again')).toHaveLength(1);
      const recovered = service.logLines('store available again')[0]!;
      expect(recovered.failures).toBeGreaterThan(0);
    } finally {
      await service.stop();
      await proxy.stop();
      await database.drop();
    }
  });
});
