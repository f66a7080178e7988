import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../../helpers/https-receiver.js';
import { interactionBody } from '../../helpers/interactions-fixtures.js';
import { OwnPostgres } from '../../helpers/own-postgres.js';
import { ServiceProcess } from '../../helpers/process.js';
import { bodyOf, deliveryEnv } from '../../helpers/webhooks-fixtures.js';

const ADMIN_EMAIL = 'admin@failover.test';
const DATABASE = 'ugs_failover';
const WRITERS = 4;
/** Creates acknowledged before the primary stops, and again after the promotion. */
const CREATES_AROUND = 40;

// A primary and a synchronous streaming standby of the test's own; DATABASE_URL names both.
describe.runIf(process.env.TEST_DATABASE_URL)('a failover to a promoted standby under a stream of creates [postgres]', () => {
  const certificates = createTestCertificates();
  let primary: OwnPostgres | undefined;
  let standby: OwnPostgres | undefined;
  let receiver: HttpsReceiver;
  let service: ServiceProcess;
  let base = '';
  let apiKey = '';

  const call = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json().catch(() => null)) as Record<string, any> | null };
  };

  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    primary = await OwnPostgres.start();
    await primary.createDatabase(DATABASE);
    standby = await primary.createStandby();
    // No acknowledged commit is only on the primary when it goes.
    await primary.replicateSynchronously();
    const hosts = `127.0.0.1:${primary.port},127.0.0.1:${standby.port}`;
    service = ServiceProcess.start(['serve'], {
      ...deliveryEnv(certificates),
      DATABASE_URL: `postgres://postgres@${hosts}/${DATABASE}?target_session_attrs=read-write`,
      PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: TEST_PASSWORD,
      WEBHOOK_LEASE_MS: '2000', DATABASE_POOL_TIMEOUT_MS: '1000',
    });
    [, base = ''] = await service.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
    const login = await call('POST', '/api/v1/auth/login', undefined, { email: ADMIN_EMAIL, password: TEST_PASSWORD });
    const token = login.json!.token as string;
    apiKey = (await call('POST', '/api/v1/api-keys', token, { name: 'ingest', scopes: ['interactions:write'] })).json!.key as string;
    expect((await call('POST', '/api/v1/webhooks', token, { url: receiver.url('/failover'), events: ['interaction.created'] })).status).toBe(201);
  });

  afterAll(async () => {
    await service?.stop('SIGKILL');
    await primary?.destroy();
    await standby?.destroy();
    await receiver?.close();
  });

  const deliveredIds = () => new Set(receiver.at('/failover').map((r) => bodyOf(r))
    .filter((body) => body.event_type === 'interaction.created').map((body) => (body.data as { id: string }).id));

  it('answers only 201 or 503 meanwhile, then writes to the new primary by itself; every 201 is kept and delivered', async () => {
    const answers: Array<{ status: number | string; id?: string; at: number }> = [];
    const acknowledged = () => answers.filter((answer) => answer.status === 201);
    let writing = true;
    const writers = Promise.all(Array.from({ length: WRITERS }, async () => {
      while (writing) {
        const created = await call('POST', '/api/v1/interactions', apiKey, interactionBody())
          .catch((error: unknown) => ({ status: `network: ${String(error)}`, json: null }));
        answers.push({ status: created.status, id: created.json?.id as string | undefined, at: Date.now() });
      }
    }));
    const until = async (condition: () => boolean, what: string, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${service.output.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    let promotedAt = 0;
    try {
      await until(() => acknowledged().length >= CREATES_AROUND, 'creates before the failover');
      await primary!.stop('immediate');
      const stoppedAt = Date.now();
      // The time it takes an operator or a failover manager to promote the standby.
      await until(() => answers.some((answer) => answer.at > stoppedAt + 500 && answer.status === 503), 'a 503 while no primary');
      await standby!.promote();
      promotedAt = Date.now();
      await until(() => acknowledged().filter((answer) => answer.at > promotedAt).length >= CREATES_AROUND,
        'creates after the promotion');
    } finally {
      writing = false;
      await writers;
    }

    const firstAfter = acknowledged().find((answer) => answer.at > promotedAt)!;
    console.log(`failover: the first create acknowledged ${firstAfter.at - promotedAt} ms after the promotion returned`);
    expect(answers.filter((answer) => answer.status !== 201 && answer.status !== 503)).toEqual([]);
    expect(answers.filter((answer) => answer.status === 503).length).toBeGreaterThan(0);

    // Every acknowledged create is on the new primary.
    const ids = acknowledged().map((answer) => answer.id!);
    const [found] = await standby!.query<{ n: number }>(
      `select count(*)::int as n from interactions where id = any('{${ids.join(',')}}'::uuid[])`, DATABASE);
    expect(found!.n).toBe(ids.length);

    // The workers carried on: every acknowledged create's event reached the receiver, and the queue drained.
    await until(() => ids.every((id) => deliveredIds().has(id)), 'every acknowledged create delivered');
    await expect.poll(async () => (await standby!.query<{ n: number }>('select count(*)::int as n from webhook_jobs', DATABASE))[0]!.n,
      { timeout: 20_000 }).toBe(0);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(service.child.exitCode).toBeNull();
  });
});
