import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshSample } from '../../../src/edge/event-catalog/event-samples.js';
import { EVENT_TYPES, type EventType } from '../../../src/platform/outbox/event-types.js';
import type { DeliveryWorker } from '../../../src/modules/delivery/delivery.worker.js';
import { startDeliveryWorker } from '../../helpers/delivery-engine.js';
import { causeEveryEvent } from '../../helpers/every-event.js';
import { Harness, type TestTenant } from '../../helpers/harness.js';
import { HEC_ANSWERS, type HecEvent, HecReceiver } from '../../helpers/hec-receiver.js';
import { createTestCertificates, HttpsReceiver } from '../../helpers/https-receiver.js';
import { STORES } from '../../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv, emitEvent } from '../../helpers/webhooks-fixtures.js';

const PUBLIC_HOST = 'ugs.example.test';
const TOKEN = '5f1c2a8e-3b7d-4e21-9c0f-6a1d2e3f4b5c';

interface Attempt { event_id: string; attempt: number; success: boolean; status_code: number; error?: string; format: string; id: string; test: boolean }

describe.each(STORES)('splunk_hec webhooks [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let worker: DeliveryWorker | undefined;
  const receivers: Array<HecReceiver | HttpsReceiver> = [];
  beforeAll(async () => {
    // The tests start and stop the delivery worker themselves: events queued while it is stopped are all due when it starts.
    h = await Harness.start(kind, {
      workers: false,
      env: deliveryEnv(certificates, { WEBHOOK_TIMEOUT_MS: '3000', PUBLIC_BASE_URL: `https://${PUBLIC_HOST}` }),
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await h.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function hec(token = TOKEN): Promise<HecReceiver> {
    const started = await HecReceiver.start(certificates, token);
    receivers.push(started);
    return started;
  }
  async function deliveries() {
    worker ??= await startDeliveryWorker(h);
  }
  async function pauseDeliveries() {
    await worker?.stop();
    worker = undefined;
  }
  const history = async (t: TestTenant, webhookId: string): Promise<Attempt[]> =>
    (await h.call('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: t.adminToken, query: { limit: 500 } })).json().deliveries;
  const emitSample = (t: TestTenant, type: EventType, data?: unknown) =>
    emitEvent(h, t.tenantId, type, data ?? freshSample(type, t.tenantId, new Date()).data);
  const hecWebhook = (t: TestTenant, r: HecReceiver, events: readonly string[], extra: Record<string, unknown> = {}) =>
    createWebhook(h, t, { url: r.url(), format: 'splunk_hec', auth_token: TOKEN, events, ...extra });

  /** What every HEC event carries around the standard envelope. */
  function expectHecEvent(event: HecEvent, t: TestTenant) {
    expect(event).toEqual({
      time: Date.parse(event.event.timestamp) / 1000, host: PUBLIC_HOST, source: 'ugs', sourcetype: `ugs:${event.event.event_type}`,
      event: { id: expect.stringMatching(/^evt_/), timestamp: expect.any(String), event_type: expect.any(String), tenant_id: t.tenantId, data: expect.anything() },
    });
  }

  it('delivers every event type as HEC events, with the Splunk token and without signature headers, the same envelopes a standard webhook gets', async () => {
    await deliveries();
    const r = await hec();
    const standard = await HttpsReceiver.start(certificates);
    receivers.push(standard);
    const t = await h.tenant();
    await hecWebhook(t, r, EVENT_TYPES, { headers: { 'X-Source': 'ugs' } });
    await createWebhook(h, t, { url: standard.url(), events: EVENT_TYPES });

    await causeEveryEvent(h, t);
    const types = () => new Set(r.accepted.map((e) => e.event.event_type));
    await r.waitFor(() => EVENT_TYPES.every((type) => types().has(type)), 30_000);
    const standardIds = () => standard.requests.map((request) => bodyOf(request).id);
    const hecIds = () => new Set(r.accepted.map((e) => e.event.id));
    await expect.poll(() => standardIds().filter((id) => !hecIds().has(id)), { timeout: 10_000 }).toEqual([]);

    // The envelope inside each HEC event is the standard body, byte for byte once parsed.
    const standardBodies = new Map(standard.requests.map((request) => [bodyOf(request).id, bodyOf(request)]));
    for (const event of r.accepted) {
      expectHecEvent(event, t);
      if (standardBodies.has(event.event.id)) expect(event.event).toEqual(standardBodies.get(event.event.id));
    }
    for (const request of r.requests) {
      expect(request.status).toBe(200);
      expect(request.headers).toMatchObject({ authorization: `Splunk ${TOKEN}`, 'content-type': 'application/json', 'x-source': 'ugs' });
      expect(Object.keys(request.headers).filter((name) => name.startsWith('x-service-') || name.startsWith('webhook-'))).toEqual([]);
    }
  });

  it('sends the jobs of one webhook together: fewer requests than events, none over 100 events, each in queue order, each recorded', async () => {
    await pauseDeliveries();
    const r = await hec();
    const t = await h.tenant();
    const webhook = await hecWebhook(t, r, ['interaction.created']);
    const total = 250;
    const emitted: string[] = [];
    for (let i = 0; i < total; i += 1) emitted.push((await emitSample(t, 'interaction.created')).id);
    await deliveries();
    await r.waitFor(() => r.accepted.length >= total);

    expect(r.requests.length).toBe(Math.ceil(total / 100));
    for (const request of r.requests) {
      expect(request.events.length).toBeLessThanOrEqual(100);
      const order = request.events.map((e) => emitted.indexOf(e.event.id));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    expect(new Set(r.accepted.map((e) => e.event.id))).toEqual(new Set(emitted));
    expect(r.accepted).toHaveLength(total);

    // One attempt each in the history, with its own id.
    await expect.poll(async () => (await history(t, webhook.id)).length).toBe(total);
    const attempts = await history(t, webhook.id);
    expect(new Set(attempts.map((a) => a.id)).size).toBe(total);
    expect(attempts.every((a) => a.success && a.status_code === 200 && a.attempt === 1 && a.format === 'splunk_hec')).toBe(true);
    expect((await h.call('GET', `/api/v1/webhooks/${webhook.id}`, { token: t.adminToken })).json()).toMatchObject({ queued: 0, delivery_count: total });
  });

  it('keeps a request under 1 MB: large events travel in more, smaller requests', async () => {
    await pauseDeliveries();
    const r = await hec();
    const t = await h.tenant();
    await hecWebhook(t, r, ['interaction.created']);
    const total = 60;
    for (let i = 0; i < total; i += 1) await emitSample(t, 'interaction.created', { id: `large-${i}`, note: 'x'.repeat(40_000) });
    await deliveries();
    await r.waitFor(() => r.accepted.length >= total);
    expect(r.requests.length).toBeGreaterThanOrEqual(Math.ceil((total * 40_000) / (1024 * 1024)));
    for (const request of r.requests) expect(request.rawBody.length).toBeLessThanOrEqual(1024 * 1024);
    expect(r.accepted).toHaveLength(total);
  });

  it('retries a batch HEC refused (busy 503 code 9, invalid data 400 code 6) and records HEC\'s text on each of its events', async () => {
    await pauseDeliveries();
    const r = await hec();
    const t = await h.tenant();
    const webhook = await hecWebhook(t, r, ['alert.created']);
    r.cue(HEC_ANSWERS.busy, HEC_ANSWERS.invalidData);
    const events = [];
    for (let i = 0; i < 5; i += 1) events.push((await emitSample(t, 'alert.created')).id);
    await deliveries();
    await r.waitFor(() => r.accepted.length >= 5);
    expect(r.requests.map((request) => [request.status, request.events.length])).toEqual([[503, 5], [400, 5], [200, 5]]);

    await expect.poll(async () => (await history(t, webhook.id)).length).toBe(15);
    const attempts = await history(t, webhook.id);
    for (const id of events) {
      const chain = attempts.filter((a) => a.event_id === id).sort((a, b) => a.attempt - b.attempt);
      expect(chain.map((a) => [a.attempt, a.status_code, a.success, a.error])).toEqual([
        [1, 503, false, 'the receiver answered HTTP 503: Server is busy (HEC code 9)'],
        [2, 400, false, 'the receiver answered HTTP 400: Invalid data format (HEC code 6)'],
        [3, 200, true, undefined],
      ]);
    }
    expect((await h.call('GET', `/api/v1/webhooks/${webhook.id}`, { token: t.adminToken })).json()).toMatchObject({ active: true, queued: 0 });
  });

  it('disables a webhook whose token HEC refuses (403 code 4) after the last attempt, without the token in its history', async () => {
    await deliveries();
    const r = await hec('the-token-hec-knows');
    const t = await h.tenant();
    const webhook = await hecWebhook(t, r, ['alert.created']);
    const event = await emitSample(t, 'alert.created');
    await r.waitFor(() => r.requests.length >= 5);
    await expect.poll(async () => (await h.call('GET', `/api/v1/webhooks/${webhook.id}`, { token: t.adminToken })).json().active, { timeout: 10_000 })
      .toBe(false);
    expect(r.requests.map((request) => request.status)).toEqual([403, 403, 403, 403, 403]);
    const attempts = await history(t, webhook.id);
    expect(attempts.map((a) => [a.event_id, a.attempt, a.status_code, a.error]).sort()).toEqual([1, 2, 3, 4, 5]
      .map((n) => [event.id, n, 403, 'the receiver answered HTTP 403: Invalid token (HEC code 4)']));
    const disabled = await h.db.selectFrom('audit_log').select('details').where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'webhook.disabled').where('target_id', '=', webhook.id).execute();
    expect(disabled).toHaveLength(1);
    expect(JSON.stringify(disabled)).not.toContain(TOKEN);
    expect(JSON.stringify(attempts)).not.toContain(TOKEN);
  });

  it('test-sends one HEC event and redelivers a past one in HEC form; a refused token is reported, not retried', async () => {
    await deliveries();
    const r = await hec();
    const t = await h.tenant();
    const webhook = await hecWebhook(t, r, ['policy.created']);
    const tested = await h.call('POST', `/api/v1/webhooks/${webhook.id}/test`, { token: t.adminToken, body: { event_type: 'audit.entry' } });
    expect(tested.json()).toMatchObject({ delivered: true, status_code: 200 });
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.headers.authorization).toBe(`Splunk ${TOKEN}`);
    expect(r.requests[0]!.events).toHaveLength(1);
    expectHecEvent(r.requests[0]!.events[0]!, t);
    expect(r.requests[0]!.events[0]!.sourcetype).toBe('ugs:audit.entry');

    const event = await emitSample(t, 'policy.created');
    await r.waitFor(() => r.accepted.some((e) => e.event.id === event.id));
    await expect.poll(async () => (await history(t, webhook.id)).filter((a) => !a.test).length).toBe(1);
    const [delivery] = (await history(t, webhook.id)).filter((a) => !a.test);
    const redelivered = await h.call('POST', `/api/v1/webhooks/${webhook.id}/deliveries/${delivery!.id}/redeliver`, { token: t.adminToken });
    expect(redelivered.statusCode).toBe(202);
    await r.waitFor(() => r.accepted.filter((e) => e.event.id === event.id).length === 2);
    const [first, again] = r.accepted.filter((e) => e.event.id === event.id);
    expect(again).toEqual(first);

    const wrong = await hec('another-token');
    const refused = await hecWebhook(t, wrong, ['policy.created']);
    const failed = await h.call('POST', `/api/v1/webhooks/${refused.id}/test`, { token: t.adminToken, body: { event_type: 'alert.created' } });
    expect(failed.json()).toMatchObject({
      delivered: false, status_code: 403, error: 'the receiver answered HTTP 403: Invalid token (HEC code 4)',
    });
    expect(wrong.requests).toHaveLength(1);
    expect((await history(t, refused.id)).map((a) => [a.test, a.success])).toEqual([[true, false]]);
  });
});
