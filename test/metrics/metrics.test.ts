import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';
import { createWebhook, deliveryEnv } from '../helpers/webhooks-fixtures.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** `name{labels}` -> value, from the Prometheus text exposition (labels as printed, in order). */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

describe.each(STORES)('GET /metrics [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start(kind, {
      workers: true,
      env: deliveryEnv(certificates, { METRICS_TOKEN, WEBHOOK_RETRY_DELAYS_MS: '0,600000', WEBHOOK_TIMEOUT_MS: '3000' }),
    });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  const scrape = async () => {
    const response = await h.call('GET', '/metrics', { token: METRICS_TOKEN });
    expect(response.statusCode).toBe(200);
    return { text: response.body, samples: parse(response.body) };
  };
  const value = async (sample: string) => (await scrape()).samples.get(sample) ?? 0;

  it('needs the METRICS_TOKEN bearer token when one is set', async () => {
    const t = await h.tenant();
    for (const token of [undefined, 'wrong-token-0123456789', t.adminToken]) {
      const response = await h.call('GET', '/metrics', { token });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: expect.stringContaining('METRICS_TOKEN'), code: 'unauthorized' });
      expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    }
    const response = await h.call('GET', '/metrics', { token: METRICS_TOKEN });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('is open without METRICS_TOKEN', async () => {
    const open = await Harness.start(kind, {});
    try {
      const response = await open.call('GET', '/metrics');
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('# TYPE ugs_http_requests_total counter');
    } finally {
      await open.close();
    }
  });

  it('exposes the families of requests, store, ingest, events, webhooks, mail and the process', async () => {
    await h.call('GET', '/healthz');
    const { text } = await scrape();
    for (const family of [
      'ugs_http_requests_total counter', 'ugs_http_request_duration_seconds histogram',
      'ugs_store_connections gauge', 'ugs_store_waiting_requests gauge', 'ugs_store_up gauge',
      'ugs_interactions_stored_total counter', 'ugs_events_emitted_total counter',
      'ugs_webhook_attempts_total counter', 'ugs_webhook_attempt_duration_seconds histogram',
      'ugs_webhook_delivery_latency_seconds histogram', 'ugs_webhook_queued_attempts gauge',
      'ugs_webhook_oldest_queued_seconds gauge', 'ugs_mail_queued gauge', 'ugs_mail_oldest_queued_seconds gauge',
      'ugs_mail_sent_total counter', 'process_cpu_seconds_total counter', 'process_resident_memory_bytes gauge',
      'nodejs_eventloop_lag_seconds gauge', 'nodejs_heap_size_used_bytes gauge',
    ]) expect(text).toContain(`# TYPE ${family}`);
    const samples = parse(text);
    expect(samples.get('ugs_store_up')).toBe(1);
    expect(samples.get('ugs_store_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(samples.get('ugs_store_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
  });

  it('counts requests by route template, interactions, events and deliveries as traffic flows', async () => {
    const t = await h.tenant();
    await createWebhook(h, t, { url: receiver.url(`/metrics-${t.tenantId}`), events: ['interaction.created'] });
    const created201 = 'ugs_http_requests_total{route="/api/v1/interactions",method="POST",status="201"}';
    const before = (await scrape()).samples;

    for (let i = 0; i < 3; i++) {
      expect((await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody() })).statusCode).toBe(201);
    }
    const batch = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: [interactionBody(), interactionBody()] });
    expect(batch.statusCode).toBe(200);
    const missing = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    expect((await h.call('GET', `/api/v1/interactions/${missing}`, { token: t.adminToken })).statusCode).toBe(404);
    await expect.poll(() => receiver.at(`/metrics-${t.tenantId}`).length, { timeout: 15_000 }).toBe(5);

    const delta = (after: Map<string, number>, sample: string) => (after.get(sample) ?? 0) - (before.get(sample) ?? 0);
    await expect.poll(async () => delta((await scrape()).samples, 'ugs_webhook_attempts_total{outcome="delivered"}'),
      { timeout: 10_000 }).toBeGreaterThanOrEqual(5);
    const { text, samples } = await scrape();
    expect(delta(samples, created201)).toBe(3);
    expect(delta(samples, 'ugs_http_requests_total{route="/api/v1/interactions/batch",method="POST",status="200"}')).toBe(1);
    expect(delta(samples, 'ugs_http_requests_total{route="/api/v1/interactions/:interaction_id",method="GET",status="404"}')).toBe(1);
    expect(delta(samples, `ugs_http_request_duration_seconds_count{route="/api/v1/interactions",method="POST",status="201"}`)).toBe(3);
    expect(delta(samples, 'ugs_interactions_stored_total')).toBe(5);
    expect(delta(samples, 'ugs_events_emitted_total{event_type="interaction.created"}')).toBeGreaterThanOrEqual(5);
    expect(delta(samples, 'ugs_webhook_delivery_latency_seconds_count')).toBeGreaterThanOrEqual(5);
    expect(delta(samples, 'ugs_webhook_attempt_duration_seconds_count{outcome="delivered"}')).toBeGreaterThanOrEqual(5);
    // Nothing of a tenant in the labels: no ids, no emails, no URLs of a request.
    for (const secret of [t.tenantId, t.adminEmail, missing, `/metrics-${t.tenantId}`]) expect(text).not.toContain(secret);
  });

  it('reports the attempts waiting for a retry and the age of the oldest', async () => {
    const t = await h.tenant();
    // Nothing listens on port 9: the first attempt fails without an answer, the retry waits 10 minutes.
    await createWebhook(h, t, { url: 'https://127.0.0.1:9/gone', events: ['interaction.created'] });
    const before = await value('ugs_webhook_attempts_total{outcome="no_response"}');
    expect((await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody() })).statusCode).toBe(201);
    await expect.poll(() => value('ugs_webhook_attempts_total{outcome="no_response"}'), { timeout: 10_000 }).toBe(before + 1);
    await expect.poll(() => value('ugs_webhook_queued_attempts'), { timeout: 5_000 }).toBeGreaterThanOrEqual(1);
    h.clock.advance(120_000);
    await expect.poll(() => value('ugs_webhook_oldest_queued_seconds'), { timeout: 5_000 }).toBeGreaterThanOrEqual(120);
  });

  it('counts the emails sent', async () => {
    const t = await h.tenant();
    const before = await value('ugs_mail_sent_total{outcome="sent"}');
    const invited = await h.call('POST', '/api/v1/users/invite', { token: t.adminToken, body: { email: `new-${Date.now()}@acme.test`, role: 'viewer' } });
    expect(invited.statusCode).toBe(201);
    await expect.poll(() => value('ugs_mail_sent_total{outcome="sent"}'), { timeout: 10_000 }).toBe(before + 1);
    expect(await value('ugs_mail_queued')).toBe(0);
  });
});
