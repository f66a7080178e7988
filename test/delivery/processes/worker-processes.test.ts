import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emitMany } from '../../../src/platform/outbox/outbox.js';
import { Harness } from '../../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../../helpers/https-receiver.js';
import { ServiceProcess } from '../../helpers/process.js';
import { bodyOf, createWebhook, deliveryEnv, emitEvent, sleep, verifyGithubStyle } from '../../helpers/webhooks-fixtures.js';

// Several processes on one database: only a PostgreSQL server allows that.
describe.skipIf(!process.env.TEST_DATABASE_URL)('webhook worker processes [postgres]', () => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  const processes: ServiceProcess[] = [];
  let env: Record<string, string>;
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start('postgres', { workers: false, env: deliveryEnv(certificates) });
    env = { ...deliveryEnv(certificates), DATABASE_URL: h.databaseUrl!, LOG_LEVEL: 'debug' };
  });
  afterEach(async () => {
    for (const started of processes.splice(0)) await started.stop('SIGKILL');
    receiver.fallback = { status: 200 };
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  async function worker(extra: Record<string, string> = {}): Promise<ServiceProcess> {
    const started = ServiceProcess.start(['worker'], { ...env, ...extra });
    processes.push(started);
    await started.waitForOutput(/workers running/);
    return started;
  }

  it('makes the attempt again once the lease expires when its worker was killed mid-delivery', async () => {
    const timing = { WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_LEASE_MS: '2000' };
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: receiver.url('/crash'), events: ['user.invited'] });
    const first = await worker(timing);
    receiver.cue({ hang: true });
    const event = await emitEvent(h, t.tenantId, 'user.invited', { id: 'u1' });
    await receiver.waitFor((requests) => requests.length >= 1);
    await first.stop('SIGKILL');

    await worker(timing);
    await receiver.waitFor((requests) => requests.length >= 2, 15_000);
    const [lost, retried] = receiver.requests;
    // Not before the dead worker's last heartbeat lapsed, and long before its 5 s attempt would have ended.
    expect(retried!.receivedAt - lost!.receivedAt).toBeGreaterThanOrEqual(1000);
    expect(retried!.rawBody.equals(lost!.rawBody)).toBe(true);
    expect(bodyOf(retried!).id).toBe(event.id);
    expect(retried!.headers['webhook-id']).toBe(event.id);
    expect(verifyGithubStyle(hook.signing_secret, retried!.rawBody, retried!.headers['x-service-signature'])).toBe(true);

    await expect.poll(async () => (await h.db.selectFrom('webhook_jobs').select('id')
      .where('tenant_id', '=', t.tenantId).execute()).length).toBe(0);
    const records = await h.db.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', t.tenantId).execute();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ attempt: 1, success: true, status_code: 200, id: retried!.headers['x-service-delivery'] });
    await sleep(500);
    expect(receiver.requests).toHaveLength(2);
  });

  it('two worker processes deliver N events to several webhooks exactly once each', async () => {
    receiver.requests.length = 0;
    receiver.fallback = { status: 200, delayMs: 20 };
    const t = await h.tenant();
    const hooks = [];
    for (let i = 0; i < 4; i += 1) hooks.push(await createWebhook(h, t, { url: receiver.url(`/pair/${i}`), events: ['interaction.created'] }));
    // A timeout that a loaded machine does not trip: a timed-out attempt is sent again (at least once).
    const [a, b] = [await worker({ WEBHOOK_TIMEOUT_MS: '3000' }), await worker({ WEBHOOK_TIMEOUT_MS: '3000' })];
    const events = [];
    for (let batch = 0; batch < 5; batch += 1) {
      const batchEvents = Array.from({ length: 10 }, (_, i) => ({ eventType: 'interaction.created' as const, data: { id: `i${batch}-${i}` } }));
      events.push(...await h.db.transaction().execute((tx) => emitMany(tx, t.tenantId, batchEvents, h.clock.now())));
    }
    const expected = events.length * hooks.length;
    await receiver.waitFor((requests) => requests.length >= expected, 60_000);
    await sleep(1500);

    expect(receiver.requests).toHaveLength(expected);
    const pairs = receiver.requests.map((r) => `${r.path} ${bodyOf(r).id}`);
    expect(new Set(pairs).size).toBe(expected);
    for (const hook of hooks) {
      const count = await h.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', t.tenantId).where('webhook_id', '=', hook.id).where('success', '=', true).executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(events.length);
    }
    const deliveredBy = [a, b].map((p) => p.logLines('webhook delivered').length);
    // Which worker wins each claim is up to timing (both usually share the work); together they send each one once.
    expect(deliveredBy[0]! + deliveredBy[1]!).toBe(expected);
  });

  it('SERVE_WORKERS=false: serve delivers nothing, and a worker process delivers what it queued', async () => {
    receiver.requests.length = 0;
    const t = await h.tenant();
    await createWebhook(h, t, { url: receiver.url('/api-only'), events: ['user.invited'] });
    const api = ServiceProcess.start(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1', SERVE_WORKERS: 'false' });
    processes.push(api);
    await api.waitForOutput(/Server listening at/);
    const event = await emitEvent(h, t.tenantId, 'user.invited', { id: 'u-api-only' });
    await sleep(1500); // a serving worker polls every second at most
    expect(receiver.at('/api-only')).toHaveLength(0);
    expect(await h.db.selectFrom('webhook_jobs').select('event_id').where('tenant_id', '=', t.tenantId).execute())
      .toEqual([{ event_id: event.id }]);

    await worker();
    await receiver.waitFor((requests) => requests.some((r) => r.path === '/api-only' && bodyOf(r).id === event.id));
  });

  it('serve: the API and its worker never log secrets, tokens or custom header values', async () => {
    const t = await h.tenant();
    const api = ServiceProcess.start(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'trace' });
    processes.push(api);
    const [, base] = await api.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
    const call = async (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => {
      const response = await request(`${base}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${t.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
    };
    const created = await call('POST', '/webhooks', {
      url: receiver.url('/serve'), events: ['user.invited'], auth_token: 'bearer-secret-0003', headers: { 'X-Api-Key': 'header-secret-0003' },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect((await call('POST', `/webhooks/${id}/test`, { event_type: 'user.invited' })).json.delivered).toBe(true);
    const rotated = await call('POST', `/webhooks/${id}/rotate-secret`);
    await call('PUT', `/webhooks/${id}`, { auth_token: 'bearer-secret-0004' });
    const event = await emitEvent(h, t.tenantId, 'user.invited', { id: 'u1' });
    await receiver.waitFor((requests) => requests.some((r) => bodyOf(r).id === event.id));
    receiver.fallback = { status: 500 };
    await emitEvent(h, t.tenantId, 'user.invited', { id: 'u2' });
    await api.waitForOutput(/webhook disabled after its last failed attempt/);
    expect(await api.stop('SIGTERM')).toBe(0);

    expect(api.output).toContain(id);
    const secrets = [created.json.signing_secret, rotated.json.signing_secret, 'bearer-secret-0003', 'bearer-secret-0004', 'header-secret-0003', t.adminToken];
    for (const secret of secrets) expect(api.output).not.toContain(secret);
  });
});
