import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDeliveryHistory } from '../../src/modules/delivery/history-purge.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { type Cue, createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv, emitEvent } from '../helpers/webhooks-fixtures.js';
import { countOf, jobsOf, withDeliveryWorker } from '../helpers/delivery-engine.js';

// 25 attempts per event: the 20 failures cued below can never exhaust one event's chain, whichever
// events they fall on, so no webhook is disabled and every event ends delivered.
const RETRY_DELAYS = ['0', ...Array.from({ length: 24 }, () => '20')].join(',');
const NOWHERE = 'https://127.0.0.1:9/hook';

interface Delivery {
  id: string;
  event_id: string;
  attempt: number;
  success: boolean;
  status_code: number;
}

describe.each(STORES)('delivery history and queue depth [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  const receivers: HttpsReceiver[] = [];
  beforeAll(async () => {
    // No background workers: each test starts a delivery worker when it wants deliveries.
    h = await Harness.start(kind, {
      env: deliveryEnv(certificates, { WEBHOOK_RETRY_DELAYS_MS: RETRY_DELAYS, WEBHOOK_TIMEOUT_MS: '2000', SESSION_TTL_SECONDS: '31536000' }),
    });
  });
  afterAll(async () => {
    await h.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function receiver(): Promise<HttpsReceiver> {
    const started = await HttpsReceiver.start(certificates);
    receivers.push(started);
    return started;
  }
  const history = async (t: TestTenant, webhookId: string) => {
    const response = await h.call('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: t.adminToken, query: { limit: 500 } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { deliveries: Delivery[]; total: number };
  };
  const webhook = async (t: TestTenant, webhookId: string) => {
    const response = await h.call('GET', `/api/v1/webhooks/${webhookId}`, { token: t.adminToken });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { id: string; queued: number; oldest_queued_at: string | null; delivery_count: number };
  };
  const listed = async (t: TestTenant) => {
    const response = await h.call('GET', '/api/v1/webhooks', { token: t.adminToken });
    expect(response.statusCode, response.body).toBe(200);
    const { webhooks } = response.json() as { webhooks: Array<{ id: string; queued: number; oldest_queued_at: string | null }> };
    return new Map(webhooks.map((w) => [w.id, { queued: w.queued, oldest_queued_at: w.oldest_queued_at }]));
  };

  it('records every attempt: one history row per request the receiver got, named by its X-Service-Delivery', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: r.url(), events: ['alert.created'] });
    const failures: Cue[] = [{ status: 503 }, { status: 500 }, { reset: true }, { status: 429 }];
    // Failures spread among successes: 20 failures in all, then every answer is 200.
    for (let i = 0; i < 20; i += 1) r.cue(failures[i % failures.length]!, { status: 200 });
    const events = [];
    for (let i = 0; i < 50; i += 1) events.push(await emitEvent(h, t.tenantId, 'alert.created', { id: `a${i}` }));

    await withDeliveryWorker(h, async () => {
      await expect.poll(async () => (await webhook(t, hook.id)).queued, { timeout: 20_000 }).toBe(0);
    });
    // Each request the receiver got is one attempt in the history, and each attempt is one request.
    const { deliveries, total } = await history(t, hook.id);
    expect(total).toBe(r.requests.length);
    expect(deliveries).toHaveLength(r.requests.length);
    const requestIds = r.requests.map((request) => request.headers['x-service-delivery']);
    expect(new Set(requestIds).size).toBe(r.requests.length);
    expect(new Set(requestIds)).toEqual(new Set(deliveries.map((d) => d.id)));
    // The history says which event each was, and what the receiver answered.
    const byId = new Map(deliveries.map((d) => [d.id, d]));
    for (const request of r.requests) {
      const record = byId.get(request.headers['x-service-delivery']!)!;
      expect(record.event_id).toBe(bodyOf(request).id);
    }
    // At least the 20 cued failures (a slow answer may time out and add one), then 50 successes.
    expect(deliveries.filter((d) => !d.success).length).toBeGreaterThanOrEqual(20);
    expect(deliveries.filter((d) => d.success)).toHaveLength(50);
    expect(deliveries.filter((d) => d.status_code === 503).length).toBeGreaterThan(0);
    expect(deliveries.filter((d) => d.status_code === 0).length).toBeGreaterThan(0);
    // Every event delivered exactly once, after as many failed attempts as its history shows.
    const successes = deliveries.filter((d) => d.success);
    expect(successes.map((d) => d.event_id).sort()).toEqual(events.map((e) => e.id).sort());
    for (const success of successes) {
      const chain = deliveries.filter((d) => d.event_id === success.event_id);
      expect(chain.map((d) => d.attempt).sort((a, b) => a - b)).toEqual(chain.map((_, i) => i + 1));
      expect(success.attempt).toBe(chain.length);
    }
    expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
    expect(await webhook(t, hook.id)).toMatchObject({ queued: 0, oldest_queued_at: null, delivery_count: r.requests.length });
  });

  it('shows each webhook its own unfinished jobs (queued, oldest_queued_at), in the read and in the list, never another tenant\'s', async () => {
    const r = await receiver();
    const a = await h.tenant('A');
    const b = await h.tenant('B');
    const hook = await createWebhook(h, a, { url: r.url(), events: ['policy.created'] });
    const idle = await createWebhook(h, a, { url: NOWHERE, events: ['user.deleted'] });
    const bHook = await createWebhook(h, b, { url: NOWHERE, events: ['policy.created'] });
    // Tenant B also has a webhook with the very id of A's: ids are unique per tenant only.
    const now = h.clock.now();
    await h.db.insertInto('webhooks').values({
      tenant_id: b.tenantId, id: hook.id, url: NOWHERE, events: JSON.stringify(['policy.created']), active: true,
      active_since: now, description: 'same id as A\'s', headers: '{}', auth_token: '', signing_secret: 'whsec_b',
      previous_signing_secret: null, previous_secret_expires_at: null, created_by: null, created_at: now, updated_at: now,
      last_delivery_at: null,
    }).execute();
    expect(await webhook(a, hook.id)).toMatchObject({ queued: 0, oldest_queued_at: null });

    // No worker runs: the jobs wait. One second between events, so the oldest is told apart.
    const events = [];
    for (let i = 0; i < 4; i += 1) {
      events.push(await emitEvent(h, a.tenantId, 'policy.created', { id: `p${i}` }));
      h.clock.advance(1000);
    }
    const backlog = { queued: 4, oldest_queued_at: events[0]!.timestamp };
    expect(await webhook(a, hook.id)).toMatchObject(backlog);
    const aList = await listed(a);
    expect(aList.get(hook.id)).toEqual(backlog);
    expect(aList.get(idle.id)).toEqual({ queued: 0, oldest_queued_at: null });
    // Tenant B sees nothing of A's backlog, not even on its webhook of the same id.
    expect(await webhook(b, hook.id)).toMatchObject({ queued: 0, oldest_queued_at: null });
    expect(await webhook(b, bHook.id)).toMatchObject({ queued: 0, oldest_queued_at: null });
    expect(await listed(b)).toEqual(new Map([
      [hook.id, { queued: 0, oldest_queued_at: null }], [bHook.id, { queued: 0, oldest_queued_at: null }],
    ]));

    // Jobs in flight are still unfinished: a receiver that does not answer keeps them counted.
    r.fallback = { hang: true };
    await withDeliveryWorker(h, async () => {
      await r.waitFor((requests) => requests.length >= 4);
      expect(await webhook(a, hook.id)).toMatchObject(backlog);
      expect((await listed(a)).get(hook.id)).toEqual(backlog);
      // They time out, are retried, and delivered: nothing waits any more.
      r.fallback = { status: 200 };
      await expect.poll(async () => (await webhook(a, hook.id)).queued, { timeout: 20_000 }).toBe(0);
    });
    expect(await webhook(a, hook.id)).toMatchObject({ queued: 0, oldest_queued_at: null });
    expect((await listed(a)).get(hook.id)).toEqual({ queued: 0, oldest_queued_at: null });
    expect(await jobsOf(h, a.tenantId)).toEqual([]);
    expect(new Set(r.requests.map((request) => bodyOf(request).id))).toEqual(new Set(events.map((e) => e.id)));
  });

  it('redelivers a delivered event with the same bytes, and answers 404 once its history is purged', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: r.url(), events: ['policy.deleted'] });
    const event = await emitEvent(h, t.tenantId, 'policy.deleted', { id: 'p1' });
    await withDeliveryWorker(h, async () => {
      await r.waitFor((requests) => requests.length >= 1);
      await expect.poll(async () => (await history(t, hook.id)).total).toBe(1);
      const [first] = (await history(t, hook.id)).deliveries;
      expect(first).toMatchObject({ event_id: event.id, success: true, attempt: 1 });
      expect(await jobsOf(h, t.tenantId)).toEqual([]);

      const response = await h.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${first!.id}/redeliver`, { token: t.adminToken });
      expect(response.statusCode, response.body).toBe(202);
      expect(response.json()).toMatchObject({ webhook_id: hook.id, event_id: event.id, redelivery_of: first!.id });
      await r.waitFor((requests) => requests.length >= 2);
      expect(r.requests[1]!.rawBody.equals(r.requests[0]!.rawBody)).toBe(true);
      expect(r.requests[1]!.headers['x-service-event-id']).toBe(event.id);
      await expect.poll(async () => (await history(t, hook.id)).total).toBe(2);
    });
    const { deliveries } = await history(t, hook.id);

    // The default retention is 30 days: 31 days later, the history and the stored event are gone.
    h.clock.advance(31 * 24 * 60 * 60 * 1000);
    try {
      const purged = await purgeDeliveryHistory(h.deps);
      expect(purged.deliveries).toBeGreaterThanOrEqual(2);
      expect(purged.messages).toBeGreaterThanOrEqual(1);
      expect((await history(t, hook.id)).total).toBe(0);
      for (const delivery of deliveries) {
        const refused = await h.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`, { token: t.adminToken });
        expect(refused.statusCode).toBe(404);
        expect(refused.json().code).toBe('not_found');
      }
      expect(await jobsOf(h, t.tenantId)).toEqual([]);
    } finally {
      h.clock.reset();
    }
  });
});
