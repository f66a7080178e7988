import pg from 'pg';
import { openStore } from '../../../src/platform/store/store.js';
import { openPayload } from '../../../src/platform/outbox/outbox.js';
import { testKeyring } from '../../helpers/keyring.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../../helpers/https-receiver.js';
import { OwnPostgres } from '../../helpers/own-postgres.js';
import { ServiceProcess } from '../../helpers/process.js';
import { bodyOf, deliveryEnv } from '../../helpers/webhooks-fixtures.js';

const ADMIN_EMAIL = 'admin@restart.test';
/** Creates acknowledged before the restart, and again after it, in each case. */
const CREATES_AROUND_RESTART = 25;

// Restarting a server: it must be one of its own, not the one the other test files share.
describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL restarts while the service takes writes and delivers [postgres]', () => {
  const certificates = createTestCertificates();
  let server: OwnPostgres | undefined;
  let receiver: HttpsReceiver | undefined;
  let service: ServiceProcess | undefined;
  let db: pg.Pool | undefined;
  let databaseUrl: string;
  let base = '';
  let apiKey = '';
  let webhookId = '';
  /** The writer of the case running; cleared in afterAll too, should a case time out. */
  let writing = false;

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
    // Attempts stay open a little, so that some are in flight when the server goes away.
    receiver.fallback = { status: 200, delayMs: 20 };
    server = await OwnPostgres.start();
    databaseUrl = await server.createDatabase('ugs_restart');
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    db.on('error', () => {});
    service = ServiceProcess.start(['serve'], {
      ...deliveryEnv(certificates),
      DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: TEST_PASSWORD,
      // Shorter than an outage may last: leases lapse while outcomes wait to be recorded.
      WEBHOOK_LEASE_MS: '2000',
    });
    [, base = ''] = await service.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
    const login = await call('POST', '/api/v1/auth/login', undefined, { email: ADMIN_EMAIL, password: TEST_PASSWORD });
    expect(login.status).toBe(200);
    const token = login.json!.token as string;
    const key = await call('POST', '/api/v1/api-keys', token, { name: 'ingest', scopes: ['interactions:write'] });
    expect(key.status).toBe(201);
    apiKey = key.json!.key as string;
    const hook = await call('POST', '/api/v1/webhooks', token, { url: receiver.url('/restart'), events: ['interaction.created'] });
    expect(hook.status).toBe(201);
    webhookId = hook.json!.id as string;
  });

  afterAll(async () => {
    writing = false;
    await service?.stop('SIGKILL');
    await db?.end().catch(() => {});
    await server?.destroy();
    await receiver?.close();
  });

  /** Interaction ids whose `interaction.created` event reached the receiver. */
  const deliveredIds = () => new Set(receiver!.at('/restart').map((r) => bodyOf(r))
    .filter((body) => body.event_type === 'interaction.created').map((body) => (body.data as { id: string }).id));

  const until = async (condition: () => boolean, what: string, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${service?.output.slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it.each(['fast', 'immediate'] as const)('pg_ctl restart -m %s: every acknowledged create is delivered, the service never restarted', async (mode) => {
    const pid = service!.child.pid;
    const acknowledged: string[] = [];
    const refused: Array<number | string> = [];
    writing = true;
    // One create at a time, as fast as answers come, before, during and after the restart.
    const writer = (async () => {
      for (let i = 0; writing; i += 1) {
        const created = await call('POST', '/api/v1/interactions', apiKey, {
          platform_id: 'openai', content_hash: `${mode === 'fast' ? 'a' : 'b'}${String(i).padStart(63, '0')}`,
        }).catch((error: unknown) => ({ status: `network: ${String(error)}`, json: null }));
        if (created.status === 201) acknowledged.push(created.json!.id as string);
        else refused.push(created.status);
      }
    })();
    try {
      await until(() => acknowledged.length >= CREATES_AROUND_RESTART, 'creates before the restart');
      await until(() => deliveredIds().has(acknowledged[0]!), 'deliveries before the restart');
      await server!.restart(mode);
      const afterRestart = acknowledged.length;
      await until(() => acknowledged.length >= afterRestart + CREATES_AROUND_RESTART, 'creates after the restart', 30_000);
    } finally {
      writing = false;
      await writer;
    }

    // The outage was seen by the writer, and it only ever got a server error for it.
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.filter((status) => typeof status !== 'number' || status < 500 || status > 599)).toEqual([]);
    expect(refused).toContain(503);

    await until(() => acknowledged.every((id) => deliveredIds().has(id)), 'every acknowledged create delivered', 30_000);
    // The queue drains: every outcome got recorded once the server was back.
    await expect.poll(async () => Number((await db!.query(
      'select count(*) as n from webhook_jobs where webhook_id = $1', [webhookId])).rows[0].n), { timeout: 20_000 }).toBe(0);
    const recorded = await db!.query<{ tenant_id: string; payload: string }>(
      `select m.tenant_id, m.payload from webhook_deliveries d
       join webhook_messages m on m.tenant_id = d.tenant_id and m.id = d.event_id
       where d.webhook_id = $1 and d.success`, [webhookId]);
    // The stored envelopes are sealed under the tenant's key (the service runs on the tests' master key).
    const store = await openStore({ databaseUrl, poolSize: 1 });
    const keyring = testKeyring(store.db);
    const recordedIds = new Set(await Promise.all(recorded.rows.map(async (row) =>
      (JSON.parse(openPayload(await keyring.forTenant(row.tenant_id), row.payload)) as { data: { id: string } }).data.id)));
    await store.close();
    for (const id of acknowledged) expect(recordedIds.has(id), `no successful attempt recorded for ${id}`).toBe(true);

    // Same process throughout: it rode out the restart.
    expect(service!.child.exitCode).toBeNull();
    expect(service!.child.pid).toBe(pid);
  });
});
