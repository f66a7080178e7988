import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../sdk/src/index.js';
import { freshSample } from '../../../src/edge/event-catalog/event-samples.js';
import { EVENT_TYPES, type EventType } from '../../../src/platform/outbox/event-types.js';
import { causeEveryEvent } from '../../helpers/every-event.js';
import { Harness, type TestTenant } from '../../helpers/harness.js';
import { createTestCertificates, HttpsReceiver, type ReceivedRequest } from '../../helpers/https-receiver.js';
import { STORES } from '../../helpers/stores.js';
import { createWebhook, deliveryEnv, emitEvent, verifyGithubStyle, verifyStandard } from '../../helpers/webhooks-fixtures.js';
import { ocsfValidator } from './ocsf-schemas.js';

interface OcsfBody {
  class_uid: number;
  activity_id: number;
  status_id?: number;
  metadata: { uid: string; event_code: string; tenant_uid: string; version: string };
}

const check = ocsfValidator();
const ocsfOf = (request: ReceivedRequest) => JSON.parse(request.rawBody.toString('utf8')) as OcsfBody;

describe.each(STORES)('ocsf webhooks [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  const receivers: HttpsReceiver[] = [];
  beforeAll(async () => {
    // A timeout that a loaded machine does not trip; retries 0, 50, 100, 150 and 200 ms apart.
    h = await Harness.start(kind, { workers: true, env: deliveryEnv(certificates, { WEBHOOK_TIMEOUT_MS: '3000' }) });
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
  const history = async (t: TestTenant, webhookId: string) =>
    (await h.call('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: t.adminToken, query: { limit: 500 } })).json();
  const emitSample = (t: TestTenant, type: EventType) => emitEvent(h, t.tenantId, type, freshSample(type, t.tenantId, new Date()).data);

  /** Every check a receiver makes of an OCSF delivery: the class schema, both signatures over the bytes received, the headers. */
  function expectSignedOcsf(secret: string, t: TestTenant, request: ReceivedRequest): OcsfBody {
    const body = ocsfOf(request);
    expect(check(body), request.rawBody.toString('utf8')).toEqual([]);
    expect(verifyGithubStyle(secret, request.rawBody, request.headers['x-service-signature'])).toBe(true);
    expect(verifyStandard(secret, request)).toEqual(body);
    // The SDK's check holds for any body: it returns the JSON it verified.
    expect(verifyWebhook(request.rawBody, request.headers, secret)).toEqual(body);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': body.metadata.event_code,
      'x-service-event-id': body.metadata.uid,
      'webhook-id': body.metadata.uid,
    });
    expect(body.metadata).toMatchObject({ version: '1.3.0', tenant_uid: t.tenantId });
    return body;
  }

  it('sends every event type the service emits as a valid OCSF event of its class, signed over the bytes sent', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const ocsf = await createWebhook(h, t, { url: r.url('/ocsf'), format: 'ocsf', events: EVENT_TYPES });
    await createWebhook(h, t, { url: r.url('/standard'), events: EVENT_TYPES });

    await causeEveryEvent(h, t);
    const failed = await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: 'not the password' } });
    expect(failed.statusCode).toBe(401);

    const codes = () => new Set(r.at('/ocsf').map((request) => ocsfOf(request).metadata.event_code));
    const failedLogin = () => r.at('/ocsf').some((request) => ocsfOf(request).class_uid === 3002 && ocsfOf(request).status_id === 2);
    await r.waitFor(() => EVENT_TYPES.every((type) => codes().has(type)) && failedLogin(), 30_000);
    const standardIds = () => new Set(r.at('/standard').map((request) => JSON.parse(request.rawBody.toString('utf8')).id as string));
    const ocsfIds = () => new Set(r.at('/ocsf').map((request) => ocsfOf(request).metadata.uid));
    // The same events as a standard webhook gets (the ocsf one, older, also gets the audit entry of the other's creation).
    await expect.poll(() => [...standardIds()].filter((id) => !ocsfIds().has(id)), { timeout: 10_000 }).toEqual([]);

    const bodies = r.at('/ocsf').map((request) => expectSignedOcsf(ocsf.signing_secret, t, request));
    expect(bodies.length).toBeGreaterThanOrEqual(30);
    expect([...new Set(bodies.map((body) => body.class_uid))].sort()).toEqual([2006, 3001, 3002, 3004, 6003]);
    const logins = bodies.filter((body) => body.class_uid === 3002).map((body) => body.status_id);
    expect(new Set(logins)).toEqual(new Set([1, 2]));
  });

  it('sends the next delivery in the format a PUT sets; redelivery and the test send use the format of the moment', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const webhook = await createWebhook(h, t, { url: r.url(), events: ['alert.created'] });
    const first = await emitSample(t, 'alert.created');
    await r.waitFor((requests) => requests.length >= 1);
    expect(JSON.parse(r.requests[0]!.rawBody.toString('utf8'))).toMatchObject({ id: first.id, event_type: 'alert.created' });

    expect((await h.call('PUT', `/api/v1/webhooks/${webhook.id}`, { token: t.adminToken, body: { format: 'ocsf' } })).statusCode).toBe(200);
    const second = await emitSample(t, 'alert.created');
    await r.waitFor((requests) => requests.length >= 2);
    expect(expectSignedOcsf(webhook.signing_secret, t, r.requests[1]!)).toMatchObject({ class_uid: 2006, metadata: { uid: second.id } });

    // The first event, delivered as standard, goes again in today's format.
    await expect.poll(async () => (await history(t, webhook.id)).total).toBe(2);
    const firstDelivery = (await history(t, webhook.id)).deliveries.find((d: { event_id: string }) => d.event_id === first.id);
    const redelivered = await h.call('POST', `/api/v1/webhooks/${webhook.id}/deliveries/${firstDelivery.id}/redeliver`, { token: t.adminToken });
    expect(redelivered.statusCode).toBe(202);
    await r.waitFor((requests) => requests.length >= 3);
    expect(expectSignedOcsf(webhook.signing_secret, t, r.requests[2]!).metadata.uid).toBe(first.id);

    const tested = await h.call('POST', `/api/v1/webhooks/${webhook.id}/test`, { token: t.adminToken, body: { event_type: 'audit.entry' } });
    expect(tested.json()).toMatchObject({ delivered: true, status_code: 200 });
    expect(expectSignedOcsf(webhook.signing_secret, t, r.requests[3]!)).toMatchObject({ metadata: { event_code: 'audit.entry' } });

    expect((await h.call('PUT', `/api/v1/webhooks/${webhook.id}`, { token: t.adminToken, body: { format: 'standard' } })).statusCode).toBe(200);
    const third = await emitSample(t, 'alert.created');
    await r.waitFor((requests) => requests.length >= 5);
    expect(JSON.parse(r.requests[4]!.rawBody.toString('utf8'))).toMatchObject({ id: third.id, event_type: 'alert.created' });

    // The history tells which format each attempt was sent in.
    await expect.poll(async () => (await history(t, webhook.id)).total).toBe(5);
    const attempts = (await history(t, webhook.id)).deliveries.reverse() as Array<{ event_id: string; test: boolean; format: string }>;
    expect(attempts.map((a) => [a.event_id === first.id ? 'first' : a.event_id === second.id ? 'second' : a.event_id === third.id ? 'third' : 'test',
      a.format])).toEqual([['first', 'standard'], ['second', 'ocsf'], ['first', 'ocsf'], ['test', 'ocsf'], ['third', 'standard']]);
  });

  // The retry schedule and the disable rule never look at the format: the same recording path as
  // standard (completions.ts); only the body differs, rendered again from the stored envelope on each attempt.
  it('retries an ocsf delivery with the same signed body until it succeeds, and disables the webhook after its last failed attempt', async () => {
    const r = await receiver();
    const t = await h.tenant();
    r.cue({ status: 500 }, { status: 503 });
    const recovering = await createWebhook(h, t, { url: r.url('/recovering'), format: 'ocsf', events: ['interaction.high_risk'] });
    const event = await emitSample(t, 'interaction.high_risk');
    await r.waitFor(() => r.at('/recovering').length >= 3);
    const bodies = r.at('/recovering').map((request) => request.rawBody.toString('utf8'));
    expect(new Set(bodies).size).toBe(1);
    for (const request of r.at('/recovering')) expectSignedOcsf(recovering.signing_secret, t, request);
    await expect.poll(async () => (await history(t, recovering.id)).deliveries.map((d: { success: boolean }) => d.success))
      .toEqual([true, false, false]);
    expect((await history(t, recovering.id)).deliveries.every((d: { format: string; event_id: string }) => d.format === 'ocsf' && d.event_id === event.id))
      .toBe(true);

    const dead = await receiver();
    dead.fallback = { status: 500 };
    const failing = await createWebhook(h, t, { url: dead.url(), format: 'ocsf', events: ['interaction.high_risk'] });
    await emitSample(t, 'interaction.high_risk');
    await dead.waitFor((requests) => requests.length >= 5);
    await expect.poll(async () => (await h.call('GET', `/api/v1/webhooks/${failing.id}`, { token: t.adminToken })).json().active)
      .toBe(false);
    for (const request of dead.requests) expectSignedOcsf(failing.signing_secret, t, request);
    const attempts = (await history(t, failing.id)).deliveries as Array<{ attempt: number; format: string; success: boolean }>;
    expect(attempts.map((a) => [a.attempt, a.format, a.success]).sort()).toEqual([1, 2, 3, 4, 5].map((n) => [n, 'ocsf', false]));
    const disabled = await h.db.selectFrom('audit_log').select('details').where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'webhook.disabled').where('target_id', '=', failing.id).execute();
    expect(disabled).toHaveLength(1);
    await emitSample(t, 'interaction.high_risk');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(dead.requests).toHaveLength(5);
  });
});
