import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createGovernanceClient, verifyWebhook, WEBHOOK_EVENT_TYPES, WebhookVerificationError, type GovernanceClient,
  type WebhookEventOf, type WebhookVerificationFailure,
} from '../../sdk/src/index.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver, type ReceivedRequest } from '../helpers/https-receiver.js';
import { listen } from '../helpers/listening.js';
import { STORES } from '../helpers/stores.js';
import { deliveryEnv } from '../helpers/webhooks-fixtures.js';

function failure(run: () => unknown): WebhookVerificationFailure | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
}

describe.each(STORES)('verifyWebhook with real deliveries [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  let t: TestTenant;
  let client: GovernanceClient;
  let webhookId: string;
  let secret: string;
  beforeAll(async () => {
    h = await Harness.start(kind, { workers: true, env: deliveryEnv(certificates) });
    receiver = await HttpsReceiver.start(certificates);
    t = await h.tenant();
    client = createGovernanceClient({ baseUrl: await listen(h.app), token: t.adminToken });
    const created = await client.POST('/api/v1/webhooks', { body: { url: receiver.url('/hook'), events: [...WEBHOOK_EVENT_TYPES] } });
    webhookId = created.id;
    secret = created.signing_secret;
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  /** Creates a policy through the API and waits for the delivery of its policy.created event. */
  async function policyCreatedDelivery(name: string): Promise<{ policyId: string; request: ReceivedRequest }> {
    const policy = await client.POST('/api/v1/policies', { body: { name, action: 'log' } });
    const isIt = (request: ReceivedRequest) => request.rawBody.includes(policy.id) && request.headers['x-service-event'] === 'policy.created';
    await receiver.waitFor((requests) => requests.some(isIt));
    return { policyId: policy.id, request: receiver.requests.find(isIt)! };
  }

  it('verifies a real delivery by either scheme and returns the typed event', async () => {
    const { policyId, request } = await policyCreatedDelivery('verify me');
    for (const scheme of ['auto', 'standard-webhooks', 'service-signature'] as const) {
      const event = verifyWebhook(request.rawBody, request.headers, secret, { scheme });
      expect(event).toMatchObject({ event_type: 'policy.created', tenant_id: t.tenantId, data: { id: policyId, name: 'verify me' } });
      expect(event.id).toBe(request.headers['webhook-id']);
      if (event.event_type === 'policy.created') expectTypeOf(event.data.action).toEqualTypeOf<'block' | 'coach' | 'log'>();
    }
    // The body as a string and the headers as a Headers object work too.
    const asFetch = verifyWebhook(request.rawBody.toString('utf8'), new Headers(request.headers), secret);
    expect(asFetch.event_type).toBe('policy.created');
    expectTypeOf<WebhookEventOf<'user.deleted'>['data']>().toEqualTypeOf<{ id: string }>();
  });

  it('rejects a tampered body, a wrong secret and missing signatures, by either scheme', async () => {
    const { request } = await policyCreatedDelivery('tamper with me');
    const tampered = Buffer.from(request.rawBody.toString('utf8').replace('tamper with me', 'tampered with!'));
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    for (const scheme of ['standard-webhooks', 'service-signature'] as const) {
      expect(failure(() => verifyWebhook(tampered, request.headers, secret, { scheme }))).toBe('invalid_signature');
      expect(failure(() => verifyWebhook(request.rawBody, request.headers, otherSecret, { scheme }))).toBe('invalid_signature');
    }
    expect(failure(() => verifyWebhook(tampered, request.headers, secret))).toBe('invalid_signature');
    const { 'webhook-signature': _standard, ...withoutStandard } = request.headers;
    // Without the Standard Webhooks headers, `auto` checks X-Service-Signature.
    expect(verifyWebhook(request.rawBody, withoutStandard, secret).event_type).toBe('policy.created');
    expect(failure(() => verifyWebhook(tampered, withoutStandard, secret))).toBe('invalid_signature');
    const { 'x-service-signature': _service, ...unsigned } = withoutStandard;
    expect(failure(() => verifyWebhook(request.rawBody, unsigned, secret))).toBe('missing_signature');
    expect(failure(() => verifyWebhook(request.rawBody, withoutStandard, secret, { scheme: 'standard-webhooks' }))).toBe('missing_signature');
  });

  it('rejects stale and future Standard Webhooks timestamps (5 minutes by default), which the HMAC-only scheme cannot see', async () => {
    const { request } = await policyCreatedDelivery('replay me');
    const sentAt = Number(request.headers['webhook-timestamp']) * 1000;
    const at = (offsetMs: number) => new Date(sentAt + offsetMs);
    expect(verifyWebhook(request.rawBody, request.headers, secret, { now: at(299_000) }).event_type).toBe('policy.created');
    expect(failure(() => verifyWebhook(request.rawBody, request.headers, secret, { now: at(301_000) }))).toBe('stale_timestamp');
    expect(failure(() => verifyWebhook(request.rawBody, request.headers, secret, { now: at(-301_000) }))).toBe('future_timestamp');
    expect(failure(() => verifyWebhook(request.rawBody, request.headers, secret, { now: at(60_000), toleranceSeconds: 30 }))).toBe('stale_timestamp');
    expect(verifyWebhook(request.rawBody, request.headers, secret, { now: at(3_600_000), scheme: 'service-signature' }).event_type).toBe('policy.created');
  });

  it('after a rotation accepts the previous secret by its Standard Webhooks signature, the new one by both schemes', async () => {
    const rotation = await client.POST('/api/v1/webhooks/{webhook_id}/rotate-secret', { params: { path: { webhook_id: webhookId } } });
    const previous = secret;
    secret = rotation.signing_secret;
    const { request } = await policyCreatedDelivery('after rotation');
    expect(request.headers['webhook-signature']!.split(' ')).toHaveLength(2);

    expect(verifyWebhook(request.rawBody, request.headers, previous).event_type).toBe('policy.created');
    expect(verifyWebhook(request.rawBody, request.headers, secret).event_type).toBe('policy.created');
    expect(verifyWebhook(request.rawBody, request.headers, secret, { scheme: 'service-signature' }).event_type).toBe('policy.created');
    expect(failure(() => verifyWebhook(request.rawBody, request.headers, previous, { scheme: 'service-signature' }))).toBe('invalid_signature');
    expect(verifyWebhook(request.rawBody, request.headers, [previous, secret], { scheme: 'service-signature' }).event_type).toBe('policy.created');
  });

  it('types interaction events as they arrive: the interaction, its decisions without matched_conditions', async () => {
    await client.POST('/api/v1/policies', { body: { name: 'log all', action: 'log' } });
    const created = await client.POST('/api/v1/interactions', { body: { platform_id: 'openai', content_hash: 'ab'.repeat(32) } });
    const isIt = (request: ReceivedRequest) => request.rawBody.includes(created.id) && request.headers['x-service-event'] === 'interaction.created';
    await receiver.waitFor((requests) => requests.some(isIt));
    const request = receiver.requests.find(isIt)!;
    const event = verifyWebhook(request.rawBody, request.headers, secret);
    if (event.event_type !== 'interaction.created') throw new Error(`unexpected ${event.event_type}`);
    const { policy_decisions: decisions, ...interaction } = created;
    expect(event.data).toEqual({ ...interaction, policy_decisions: decisions.map(({ matched_conditions: _m, ...decision }) => decision) });
    expect(event.data.policy_decisions.map((decision) => decision.policy_name)).toContain('log all');
  });

  it('verifies the test operation\'s delivery of any event type', async () => {
    const before = receiver.requests.length;
    const outcome = await client.POST('/api/v1/webhooks/{webhook_id}/test', {
      params: { path: { webhook_id: webhookId } }, body: { event_type: 'user.deleted' },
    });
    expect(outcome.delivered).toBe(true);
    const request = receiver.requests.slice(before).find((r) => r.headers['x-service-event'] === 'user.deleted')!;
    const event = verifyWebhook(request.rawBody, request.headers, secret);
    expect(event.event_type).toBe('user.deleted');
  });
});
