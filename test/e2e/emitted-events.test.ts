import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/platform/outbox/event-types.js';
import { type CatalogItem, catalogValidators } from '../helpers/events-fixtures.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';
import { invite, STRONG_PASSWORD } from '../helpers/users-fixtures.js';
import { bodyOf, createWebhook, deliveryEnv } from '../helpers/webhooks-fixtures.js';

// Real events, caused through the API and delivered to a real HTTPS receiver, checked against the
// published catalog: a schema that drifts from what is emitted (a field added, renamed, dropped
// or retyped on either side) fails here.
describe.each(STORES)('emitted events match the event catalog [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start(kind, { workers: true, env: deliveryEnv(certificates, { WEBHOOK_TIMEOUT_MS: '3000' }) });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  const ok = async (method: string, url: string, t: TestTenant, body?: unknown) => {
    const response = await h.call(method, url, { token: t.adminToken, body });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return response.body ? response.json() : undefined;
  };

  /** Drives the API so that every type the service emits is emitted at least once, in several shapes. */
  async function causeEveryEvent(t: TestTenant) {
    // Users: invited (with and without a display name), activated, role changed, deleted.
    const invited = await invite(h, t, { display_name: 'Jordan Lee' });
    await invite(h, t, { role: 'admin' });
    const accepted = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
    expect(accepted.statusCode, accepted.body).toBe(200);
    await ok('PUT', `/api/v1/users/${invited.id}`, t, { role: 'admin' });
    await ok('DELETE', `/api/v1/users/${invited.id}`, t);

    // Policies: created, updated, disabled, enabled (alone and within an update), deleted.
    const cards = await createPolicy(h, t, {
      name: 'No card numbers', action: 'block', severity: 'critical',
      conditions: { classification_types: ['CREDIT_CARD'], directions: ['outbound'] },
    });
    const risky = await createPolicy(h, t, { name: 'Coach risky prompts', action: 'coach', severity: 'high', conditions: { min_risk_score: 0.8 } });
    await createPolicy(h, t, { name: 'Log everything', action: 'log' });
    await ok('PUT', `/api/v1/policies/${risky.id}`, t, { description: 'Coaches on high risk' });
    await ok('POST', `/api/v1/policies/${risky.id}/disable`, t);
    await ok('PUT', `/api/v1/policies/${risky.id}`, t, { enabled: true, severity: 'high', name: 'Coach very risky prompts' });
    await ok('POST', `/api/v1/policies/${cards.id}/disable`, t);
    await ok('POST', `/api/v1/policies/${cards.id}/enable`, t);

    // Interactions and alerts: a violating, high-risk one (critical and high alerts), a plain one, a batch, by an API key.
    const violating = await ok('POST', '/api/v1/interactions', t, interactionBody({
      risk_score: 0.93, classifications: [classification('CREDIT_CARD')], content_metadata: { model: 'gpt-4o', tabs: [1, 2] },
      user_id: t.adminId, interaction_type: 'completion', direction: 'outbound', source: 'proxy',
    }));
    await ok('POST', '/api/v1/interactions', t, interactionBody({ risk_score: 0.1 }));
    const key = await h.apiKey(t, ['interactions:write']);
    const batch = await h.call('POST', '/api/v1/interactions/batch', {
      token: key, body: [interactionBody({ risk_score: 0.85 }), interactionBody({ classifications: [classification('EMAIL')] })],
    });
    expect(batch.json()).toMatchObject({ stored: 2 });
    const alerts = (await ok('GET', `/api/v1/alerts?interaction_id=${violating.id}`, t)).alerts as Array<{ id: string; severity: string }>;
    expect(alerts.map((a) => a.severity).sort()).toEqual(['critical', 'high']);
    await ok('POST', `/api/v1/alerts/${alerts[0]!.id}/resolve`, t);
    await ok('DELETE', `/api/v1/policies/${risky.id}`, t);
  }

  it('sends, for every type the service emits, bodies that its catalog schema accepts (closed: nothing undeclared)', async () => {
    const t = await h.tenant();
    const path = `/all-${t.tenantId}`;
    await createWebhook(h, t, { url: receiver.url(path), events: EVENT_TYPES });
    const catalog = (await ok('GET', '/api/v1/event-types', t)).event_types as CatalogItem[];
    const check = catalogValidators(catalog);

    await causeEveryEvent(t);
    const emitted = EVENT_TYPES;
    const received = () => new Set(receiver.at(path).map((request) => bodyOf(request).event_type));
    await receiver.waitFor(() => emitted.every((type) => received().has(type)), 20_000);
    expect([...received()].sort()).toEqual([...emitted].sort());

    const bodies = receiver.at(path).map(bodyOf);
    expect(bodies.length).toBeGreaterThanOrEqual(30);
    for (const body of bodies) {
      expect(check(body.event_type, body)).toEqual([]);
      expect(body.tenant_id).toBe(t.tenantId);
    }

    // The check has teeth: the same bodies with one field more, or one field less, are refused.
    for (const body of bodies) {
      const data = body.data as Record<string, unknown>;
      expect(check(body.event_type, { ...body, data: { ...data, added_later: true } })).not.toEqual([]);
      const { id: _id, ...withoutId } = data;
      expect(check(body.event_type, { ...body, data: withoutId })).not.toEqual([]);
    }
  });
});
