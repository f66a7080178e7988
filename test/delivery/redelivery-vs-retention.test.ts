import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDeliveryHistory } from '../../src/modules/delivery/history-purge.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { createWebhook, deliveryEnv, emitEvent } from '../helpers/webhooks-fixtures.js';
import { gate, jobsOf, messagesOf, withDeliveryWorker } from '../helpers/delivery-engine.js';

// The history's purge against redeliveries: an event stays as long as the history lists a
// delivery of it (its age does not matter), and a redelivery being queued while the purge runs
// keeps its event and is delivered.

const HOUR_MS = 60 * 60 * 1000;
const certificates = createTestCertificates();

interface History { total: number; deliveries: Array<{ id: string; event_id: string }> }

async function setup(kind: 'pglite' | 'postgres') {
  const r = await HttpsReceiver.start(certificates);
  const h = await Harness.start(kind, {
    env: deliveryEnv(certificates, { WEBHOOK_HISTORY_RETENTION_DAYS: '1', SESSION_TTL_SECONDS: '31536000' }),
  });
  return { r, h };
}

const historyOf = async (h: Harness, t: TestTenant, webhookId: string) =>
  (await h.call('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: t.adminToken })).json() as History;

describe.each(STORES)('redelivery of a delivery the history still lists [%s]', (kind) => {
  let h: Harness;
  let r: HttpsReceiver;
  beforeAll(async () => ({ h, r } = await setup(kind)));
  afterAll(async () => {
    await h.close();
    await r.close();
  });

  it('is accepted as long as the history lists the delivery, even when the event itself is older than the retention', async () => {
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: r.url(), events: ['policy.deleted'] });
    const event = await emitEvent(h, t.tenantId, 'policy.deleted', { id: 'p1' });
    await withDeliveryWorker(h, async () => {
      await expect.poll(async () => (await historyOf(h, t, hook.id)).total).toBe(1);
      // The attempt is listed as soon as it is recorded; its job goes just after. Moving the clock
      // before that would expire the job's lease and have it delivered a second time.
      await expect.poll(async () => (await jobsOf(h, t.tenantId, hook.id)).length).toBe(0);
      // 18 hours later the receiver's owner asks for the event again: a second attempt, 18 h younger.
      h.clock.advance(18 * HOUR_MS);
      const [first] = (await historyOf(h, t, hook.id)).deliveries;
      const again = await h.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${first!.id}/redeliver`, { token: t.adminToken });
      expect(again.statusCode).toBe(202);
      await expect.poll(async () => (await historyOf(h, t, hook.id)).total).toBe(2);
    });
    // 30 hours after the event, 12 after the redelivery, the purge (1 day kept) runs.
    h.clock.advance(12 * HOUR_MS);
    await purgeDeliveryHistory(h.deps);
    const { deliveries } = await historyOf(h, t, hook.id);
    expect(deliveries).toHaveLength(1); // the first attempt went; the redelivered one is listed
    expect(deliveries[0]!.event_id).toBe(event.id);
    // Listed, but refused: "Delivery not found", because the event's stored envelope was purged.
    const listed = await h.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${deliveries[0]!.id}/redeliver`, { token: t.adminToken });
    expect(listed.statusCode, listed.body).toBe(202);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('redelivery racing the purge [postgres]', () => {
  let h: Harness;
  let r: HttpsReceiver;
  beforeAll(async () => ({ h, r } = await setup('postgres')));
  afterAll(async () => {
    await h.close();
    await r.close();
  });

  it('a redelivery in progress keeps its event from the purge, and is delivered, never stuck in the queue', async () => {
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: r.url(), events: ['policy.deleted'] });
    await emitEvent(h, t.tenantId, 'policy.deleted', { id: 'p1' });
    await withDeliveryWorker(h, async () => {
      await expect.poll(async () => (await historyOf(h, t, hook.id)).total).toBe(1);
    });
    const [first] = (await historyOf(h, t, hook.id)).deliveries;
    // A day and an hour later: the delivery and its event are due for the purge, which has not run yet.
    h.clock.advance(25 * HOUR_MS);

    // Pause the redelivery after its checks, just before it inserts its job (a lock on the jobs
    // table that lets reads, and so the purge, through), to run the purge in between.
    const locked = gate();
    const release = gate();
    const pausing = h.db.transaction().execute(async (tx) => {
      await sql`lock table webhook_jobs in share mode`.execute(tx);
      locked.open();
      await release.promise;
    });
    await locked.promise;
    const redelivering = h.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${first!.id}/redeliver`, { token: t.adminToken });
    await expect.poll(async () => (await sql<{ n: number }>`select count(*)::int as n from pg_locks
      where locktype = 'relation' and relation = 'webhook_jobs'::regclass and not granted`.execute(h.db)).rows[0]!.n).toBe(1);
    // The purge skips the envelope the redelivery holds (its history row goes).
    expect(await purgeDeliveryHistory(h.deps)).toEqual({ deliveries: 1, messages: 0 });
    release.open();
    await pausing;
    const response = await redelivering;
    expect(response.statusCode, response.body).toBe(202);
    // Accepted: it must reach the receiver and leave the queue.
    await withDeliveryWorker(h, async () => {
      const state = async () => JSON.stringify({
        jobs: await jobsOf(h, t.tenantId), storedEvents: [...(await messagesOf(h, t.tenantId)).keys()],
      });
      await expect.poll(() => r.requests.length, { timeout: 3000, message: 'the accepted redelivery never reached the receiver' })
        .toBe(2).catch(async (error: Error) => {
          throw new Error(`${error.message}; queue: ${await state()}`);
        });
      await expect.poll(async () => (await h.call('GET', `/api/v1/webhooks/${hook.id}`, { token: t.adminToken })).json().queued,
        { timeout: 3000 }).toBe(0);
    });
  });
});
