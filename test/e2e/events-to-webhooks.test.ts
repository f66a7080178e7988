import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver, type ReceivedRequest } from '../helpers/https-receiver.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv, verifyGithubStyle, verifyStandard } from '../helpers/webhooks-fixtures.js';

// The whole path: a change through the API -> its event in the outbox -> a signed delivery.
describe.each(STORES)('API changes reach subscribed webhooks [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    // A timeout that a loaded machine does not trip: a timed-out attempt is sent again (at least once).
    h = await Harness.start(kind, { workers: true, env: deliveryEnv(certificates, { WEBHOOK_TIMEOUT_MS: '3000' }) });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  const eventsAt = (path: string) => receiver.at(path).map((r) => bodyOf(r));
  const expectSigned = (secret: string, requests: ReceivedRequest[]) => {
    for (const request of requests) {
      expect(verifyGithubStyle(secret, request.rawBody, request.headers['x-service-signature'])).toBe(true);
      expect(() => verifyStandard(secret, request)).not.toThrow();
    }
  };

  it('delivers user, policy, interaction and alert events to the webhooks subscribed to them, and only those', async () => {
    const t = await h.tenant();
    const everything = await createWebhook(h, t, {
      url: receiver.url(`/all-${t.tenantId}`),
      events: ['user.invited', 'user.role_changed', 'user.deleted', 'policy.created', 'interaction.created',
        'interaction.policy_violated', 'interaction.high_risk', 'alert.created', 'alert.severity_critical'],
    });
    const usersOnly = await createWebhook(h, t, { url: receiver.url(`/users-${t.tenantId}`), events: ['user.invited'] });
    const other = await h.tenant('Other');
    await createWebhook(h, other, { url: receiver.url(`/other-${other.tenantId}`), events: ['user.invited', 'interaction.created'] });

    const invited = await h.call('POST', '/api/v1/users/invite', {
      token: t.adminToken, body: { email: 'analyst@acme.test', role: 'viewer' },
    });
    expect(invited.statusCode).toBe(201);
    const userId = invited.json().id;
    expect((await h.call('PUT', `/api/v1/users/${userId}`, { token: t.adminToken, body: { role: 'admin' } })).statusCode).toBe(200);
    expect((await h.call('DELETE', `/api/v1/users/${userId}`, { token: t.adminToken })).statusCode).toBe(204);
    const policy = await createPolicy(h, t, { name: 'No card numbers', action: 'block', severity: 'critical', conditions: { classification_types: ['CREDIT_CARD'] } });
    const created = await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken, body: interactionBody({ risk_score: 0.9, classifications: [classification('CREDIT_CARD')] }),
    });
    expect(created.statusCode).toBe(201);
    const interaction = created.json();

    await receiver.waitFor(() => eventsAt(`/all-${t.tenantId}`).length >= 9);
    const all = eventsAt(`/all-${t.tenantId}`);
    expect(all.map((e) => e.event_type).sort()).toEqual([
      'alert.created', 'alert.severity_critical', 'interaction.created', 'interaction.high_risk',
      'interaction.policy_violated', 'policy.created', 'user.deleted', 'user.invited', 'user.role_changed',
    ]);
    expect(all.every((e) => e.tenant_id === t.tenantId)).toBe(true);
    expect(all.find((e) => e.event_type === 'user.deleted')!.data).toEqual({ id: userId });
    expect(all.find((e) => e.event_type === 'user.role_changed')!.data).toMatchObject({ id: userId, role: 'admin' });
    expect(all.find((e) => e.event_type === 'policy.created')!.data).toMatchObject({ id: policy.id, action: 'block' });
    const violated = all.find((e) => e.event_type === 'interaction.policy_violated')!.data as Record<string, any>;
    expect(violated).toMatchObject({ id: interaction.id, platform_id: 'openai', risk_score: 0.9 });
    expect(violated.policy_decisions).toEqual([{ policy_id: policy.id, policy_name: 'No card numbers', action: 'block' }]);
    expect(all.find((e) => e.event_type === 'alert.created')!.data).toMatchObject({ interaction_id: interaction.id, severity: 'critical' });
    expectSigned(everything.signing_secret, receiver.at(`/all-${t.tenantId}`));

    await receiver.waitFor(() => eventsAt(`/users-${t.tenantId}`).length >= 1);
    expect(eventsAt(`/users-${t.tenantId}`).map((e) => e.event_type)).toEqual(['user.invited']);
    expectSigned(usersOnly.signing_secret, receiver.at(`/users-${t.tenantId}`));
    expect(receiver.at(`/other-${other.tenantId}`)).toEqual([]);
  });

  it('delivers nothing for a refused change', async () => {
    const t = await h.tenant();
    await createWebhook(h, t, { url: receiver.url(`/refused-${t.tenantId}`), events: ['user.invited', 'interaction.created'] });
    expect((await h.call('POST', '/api/v1/users/invite', { token: t.adminToken, body: { email: t.adminEmail, role: 'viewer' } })).statusCode).toBe(409);
    expect((await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody({ risk_score: 2 }) })).statusCode).toBe(400);
    const probe = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody() });
    await receiver.waitFor(() => receiver.at(`/refused-${t.tenantId}`).length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const received = receiver.at(`/refused-${t.tenantId}`).map((r) => bodyOf(r));
    expect(received.map((e) => [e.event_type, (e.data as { id: string }).id])).toEqual([['interaction.created', probe.json().id]]);
  });

  it('lets an API key with interactions:write ingest, and one with interactions:read query', async () => {
    const t = await h.tenant();
    const writeKey = await h.apiKey(t, ['interactions:write']);
    const readKey = await h.apiKey(t, ['interactions:read']);
    const created = await h.call('POST', '/api/v1/interactions', { token: writeKey, body: interactionBody() });
    expect(created.statusCode).toBe(201);
    expect((await h.call('GET', '/api/v1/interactions', { token: writeKey })).statusCode).toBe(403);
    const listed = await h.call('GET', '/api/v1/interactions', { token: readKey });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.map((i: { id: string }) => i.id)).toEqual([created.json().id]);
    expect((await h.call('POST', '/api/v1/interactions', { token: readKey, body: interactionBody() })).statusCode).toBe(403);
  });
});
