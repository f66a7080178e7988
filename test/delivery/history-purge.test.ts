import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { purgeDeliveryHistory, RetentionWorker } from '../../src/modules/delivery/history-purge.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { ServiceProcess, tempDir } from '../helpers/process.js';
import { STORES } from '../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv, emitEvent } from '../helpers/webhooks-fixtures.js';
import { countOf, jobsOf, messagesOf, withDeliveryWorker } from '../helpers/delivery-engine.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
/** More than the purge's batch of 1000, so that it takes several. */
const BULK = 2500;
/** How long the first deliveries may take on a loaded machine (TLS handshakes included). */
const POLL_MS = 20_000;

/** Old rows written straight to the tables (as years of traffic would have left them), for speed. */
async function insertOldRows(h: Harness, tenantId: string, webhookId: string, count: number, at: Date) {
  await sql`insert into webhook_deliveries (tenant_id, id, webhook_id, job_id, event_id, event_type, attempt, is_test,
      attempted_at, status_code, response_time_ms, success, error)
    select ${tenantId}, 'dlv_bulk_' || n, ${webhookId}, null, 'evt_bulk_' || n, 'policy.created', 1, false,
      ${at}::timestamptz - n * interval '1 second', 200, 5, true, null
    from generate_series(1, ${count}) as n`.execute(h.db);
  await sql`insert into webhook_messages (tenant_id, id, event_type, payload, created_at)
    select ${tenantId}, 'evt_bulk_' || n, 'policy.created', '{"data":{}}', ${at}::timestamptz - n * interval '1 second'
    from generate_series(1, ${count}) as n`.execute(h.db);
}

describe.each(STORES)('delivery history retention [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let fine: HttpsReceiver;
  let failing: HttpsReceiver;
  beforeAll(async () => {
    fine = await HttpsReceiver.start(certificates);
    failing = await HttpsReceiver.start(certificates);
    // The second attempt comes 10 days after a failed first one: a job that long in the queue.
    h = await Harness.start(kind, {
      env: deliveryEnv(certificates, {
        WEBHOOK_HISTORY_RETENTION_DAYS: '1', WEBHOOK_RETRY_DELAYS_MS: `0,${10 * DAY_MS}`, SESSION_TTL_SECONDS: '31536000',
        // A first attempt that times out is retried only 10 days later: on a loaded machine the
        // first TLS handshakes took over the usual 500 ms, and the test waited for nothing.
        WEBHOOK_TIMEOUT_MS: '10000',
      }),
    });
  });
  afterAll(async () => {
    await h.close();
    await fine.close();
    await failing.close();
  });

  const history = async (t: TestTenant, webhookId: string) => {
    const response = await h.call('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: t.adminToken, query: { limit: 500 } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { deliveries: Array<{ id: string; event_id: string; success: boolean }>; total: number };
  };

  it('purges the attempts and the unneeded events older than WEBHOOK_HISTORY_RETENTION_DAYS, in batches, and nothing else', async () => {
    const t = await h.tenant();
    const other = await h.tenant('Other');
    const hook = await createWebhook(h, t, { url: fine.url(), events: ['policy.created'] });
    const retried = await createWebhook(h, t, { url: failing.url(), events: ['policy.deleted'] });
    const otherHook = await createWebhook(h, other, { url: fine.url('/other'), events: ['policy.created'] });
    failing.fallback = { status: 503 };

    // Day 0: three events delivered, one whose first attempt fails (its retry is due on day 10).
    const old = [];
    for (let i = 0; i < 3; i += 1) old.push(await emitEvent(h, t.tenantId, 'policy.created', { id: `old${i}` }));
    const pending = await emitEvent(h, t.tenantId, 'policy.deleted', { id: 'pending' });
    await withDeliveryWorker(h, async () => {
      await expect.poll(async () => (await history(t, hook.id)).total, { timeout: POLL_MS }).toBe(3);
      await expect.poll(async () => (await history(t, retried.id)).total, { timeout: POLL_MS }).toBe(1);
    });
    expect(await jobsOf(h, t.tenantId)).toMatchObject([{ webhook_id: retried.id, event_id: pending.id, attempt: 2 }]);

    // Day 2: three more, for this tenant and another.
    h.clock.advance(2 * DAY_MS);
    const recent = [];
    for (let i = 0; i < 3; i += 1) recent.push(await emitEvent(h, t.tenantId, 'policy.created', { id: `recent${i}` }));
    const otherRecent = await emitEvent(h, other.tenantId, 'policy.created', { id: 'other-recent' });
    await withDeliveryWorker(h, async () => {
      await expect.poll(async () => (await history(t, hook.id)).total, { timeout: POLL_MS }).toBe(6);
      await expect.poll(async () => (await history(other, otherHook.id)).total, { timeout: POLL_MS }).toBe(1);
    });
    // Years of old traffic, for both tenants, so that the purge needs several batches.
    const longAgo = new Date(h.clock.now().getTime() - 3 * DAY_MS);
    await insertOldRows(h, t.tenantId, hook.id, BULK, longAgo);
    await insertOldRows(h, other.tenantId, otherHook.id, 1200, longAgo);
    expect((await history(t, hook.id)).total).toBe(6 + BULK);

    const purged = await purgeDeliveryHistory(h.deps);
    expect(purged).toEqual({ deliveries: 3 + 1 + BULK + 1200, messages: 3 + BULK + 1200 });

    // Only the recent attempts remain, of every tenant.
    const kept = await history(t, hook.id);
    expect(kept.total).toBe(3);
    expect(kept.deliveries.map((d) => d.event_id).sort()).toEqual(recent.map((e) => e.id).sort());
    expect((await history(t, retried.id)).total).toBe(0);
    expect((await history(other, otherHook.id)).deliveries.map((d) => d.event_id)).toEqual([otherRecent.id]);
    const cutoff = new Date(h.clock.now().getTime() - DAY_MS);
    const olderRows = await h.db.selectFrom('webhook_deliveries').select('id').where('attempted_at', '<', cutoff).execute();
    expect(olderRows).toEqual([]);

    // The events of the old attempts are gone; the recent ones stay, and so does the old one a job still needs.
    const messages = await messagesOf(h, t.tenantId);
    expect([...messages.keys()].sort()).toEqual([...recent.map((e) => e.id), pending.id].sort());
    expect([...(await messagesOf(h, other.tenantId)).keys()]).toEqual([otherRecent.id]);

    // A second run finds nothing more.
    expect(await purgeDeliveryHistory(h.deps)).toEqual({ deliveries: 0, messages: 0 });

    // Day 11: the pending job's retry is due, and sends the bytes kept for it.
    h.clock.advance(9 * DAY_MS);
    failing.fallback = { status: 200 };
    await withDeliveryWorker(h, async () => {
      await failing.waitFor((requests) => requests.length >= 2);
      await expect.poll(() => countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
    });
    expect(failing.requests).toHaveLength(2);
    expect(failing.requests[1]!.rawBody.equals(failing.requests[0]!.rawBody)).toBe(true);
    expect(bodyOf(failing.requests[1]!).id).toBe(pending.id);
  });

  it('runs the purge as soon as the RetentionWorker starts', async () => {
    const t = await h.tenant();
    await insertOldRows(h, t.tenantId, 'whk_gone', 10, new Date(h.clock.now().getTime() - 2 * DAY_MS));
    const worker = new RetentionWorker(h.deps, pino({ level: 'silent' }), { intervalMs: 60 * 60 * 1000 });
    await worker.start();
    try {
      await expect.poll(() => countOf(h, 'webhook_deliveries', t.tenantId)).toBe(0);
      await expect.poll(() => countOf(h, 'webhook_messages', t.tenantId)).toBe(0);
    } finally {
      await worker.stop();
    }
  });

  it('uses 30 days unless told otherwise', async () => {
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: fine.url('/default'), events: ['user.deleted'] });
    const now = h.clock.now();
    await insertOldRows(h, t.tenantId, hook.id, 3, new Date(now.getTime() - 29 * DAY_MS));
    await sql`update webhook_deliveries set attempted_at = ${new Date(now.getTime() - 31 * DAY_MS)}
      where tenant_id = ${t.tenantId} and id = 'dlv_bulk_1'`.execute(h.db);
    await sql`update webhook_messages set created_at = ${new Date(now.getTime() - 31 * DAY_MS)}
      where tenant_id = ${t.tenantId} and id = 'evt_bulk_1'`.execute(h.db);
    // The same store and clock with the default configuration.
    const defaults = { ...h.deps, config: loadConfig({ LOG_LEVEL: 'silent' }) };
    expect(defaults.config.webhooks.historyRetentionDays).toBe(30);
    await purgeDeliveryHistory(defaults);
    expect((await history(t, hook.id)).deliveries.map((d) => d.id).sort()).toEqual(['dlv_bulk_2', 'dlv_bulk_3']);
    expect([...(await messagesOf(h, t.tenantId)).keys()].sort()).toEqual(['evt_bulk_2', 'evt_bulk_3']);
    // With this harness's 1 day, they all go.
    await purgeDeliveryHistory(h.deps);
    expect((await history(t, hook.id)).total).toBe(0);
    expect(await countOf(h, 'webhook_messages', t.tenantId)).toBe(0);
  });
});

describe.each(STORES)('retention worker [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, {
      workers: true, workerOptions: { pollIntervalMs: 50, retentionIntervalMs: 100 },
      env: { WEBHOOK_HISTORY_RETENTION_DAYS: '1' },
    });
  });
  afterAll(async () => h.close());

  it('purges every retentionIntervalMs, in batches, what the moving clock makes older than the retention', async () => {
    const t = await h.tenant();
    const now = h.clock.now();
    await insertOldRows(h, t.tenantId, 'whk_gone', 1100, new Date(now.getTime() - 2 * DAY_MS));
    await expect.poll(() => countOf(h, 'webhook_deliveries', t.tenantId), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => countOf(h, 'webhook_messages', t.tenantId), { timeout: 10_000 }).toBe(0);

    // Rows of half a day ago stay while younger than a day...
    const other = await h.tenant('Other');
    await insertOldRows(h, other.tenantId, 'whk_recent', 5, new Date(now.getTime() - 12 * HOUR_MS));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await countOf(h, 'webhook_deliveries', other.tenantId)).toBe(5);
    expect(await countOf(h, 'webhook_messages', other.tenantId)).toBe(5);
    // ...and go by themselves once the clock says they are older.
    h.clock.advance(DAY_MS);
    await expect.poll(() => countOf(h, 'webhook_deliveries', other.tenantId), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => countOf(h, 'webhook_messages', other.tenantId), { timeout: 10_000 }).toBe(0);
  });
});

describe('WEBHOOK_HISTORY_RETENTION_DAYS', () => {
  it('defaults to 30 days and reads a number of days', () => {
    expect(loadConfig({}).webhooks.historyRetentionDays).toBe(30);
    expect(loadConfig({ WEBHOOK_HISTORY_RETENTION_DAYS: '7' }).webhooks.historyRetentionDays).toBe(7);
    expect(loadConfig({ WEBHOOK_HISTORY_RETENTION_DAYS: ' 90 ' }).webhooks.historyRetentionDays).toBe(90);
  });

  it.each(['0', '-1', '1.5', 'thirty', '30d', '36501'])('refuses %j with a ConfigError naming the variable', (value) => {
    let error: unknown;
    try {
      loadConfig({ WEBHOOK_HISTORY_RETENTION_DAYS: value });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('WEBHOOK_HISTORY_RETENTION_DAYS');
    expect((error as ConfigError).message).toMatch(/^Invalid configuration: WEBHOOK_HISTORY_RETENTION_DAYS=/);
  });

  it('stops the service at start, naming the variable', async () => {
    const result = await ServiceProcess.run(['serve'], {
      WEBHOOK_HISTORY_RETENTION_DAYS: '0', DATA_DIR: tempDir(), PORT: '0', HOST: '127.0.0.1',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('WEBHOOK_HISTORY_RETENTION_DAYS');
  });
});
