import { expect } from 'vitest';
import type { Harness, TestTenant } from './harness.js';
import { classification, createPolicy, interactionBody } from './interactions-fixtures.js';
import { invite, STRONG_PASSWORD } from './users-fixtures.js';

/** Drives the API so that every type the service emits is emitted at least once, in several shapes. */
export async function causeEveryEvent(h: Harness, t: TestTenant): Promise<void> {
  const ok = async (method: string, url: string, body?: unknown) => {
    const response = await h.call(method, url, { token: t.adminToken, body });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return response.body ? response.json() : undefined;
  };

  // Users: invited (with and without a display name), activated, role changed, deleted.
  const invited = await invite(h, t, { display_name: 'Jordan Lee' });
  await invite(h, t, { role: 'admin' });
  const accepted = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
  expect(accepted.statusCode, accepted.body).toBe(200);
  await ok('PUT', `/api/v1/users/${invited.id}`, { role: 'admin' });
  await ok('DELETE', `/api/v1/users/${invited.id}`);

  // Policies: created, updated, disabled, enabled (alone and within an update), deleted.
  const cards = await createPolicy(h, t, {
    name: 'No card numbers', action: 'block', severity: 'critical',
    conditions: { classification_types: ['CREDIT_CARD'], directions: ['outbound'] },
  });
  const risky = await createPolicy(h, t, { name: 'Coach risky prompts', action: 'coach', severity: 'high', conditions: { min_risk_score: 0.8 } });
  await createPolicy(h, t, { name: 'Log everything', action: 'log' });
  await ok('PUT', `/api/v1/policies/${risky.id}`, { description: 'Coaches on high risk' });
  await ok('POST', `/api/v1/policies/${risky.id}/disable`);
  await ok('PUT', `/api/v1/policies/${risky.id}`, { enabled: true, severity: 'high', name: 'Coach very risky prompts' });
  await ok('POST', `/api/v1/policies/${cards.id}/disable`);
  await ok('POST', `/api/v1/policies/${cards.id}/enable`);

  // Interactions and alerts: a violating, high-risk one (critical and high alerts), a plain one, a batch, by an API key.
  const violating = await ok('POST', '/api/v1/interactions', interactionBody({
    risk_score: 0.93, classifications: [classification('CREDIT_CARD')], content_metadata: { model: 'gpt-4o', tabs: [1, 2] },
    user_id: t.adminId, interaction_type: 'completion', direction: 'outbound', source: 'proxy',
  }));
  await ok('POST', '/api/v1/interactions', interactionBody({ risk_score: 0.1 }));
  const key = await h.apiKey(t, ['interactions:write']);
  const batch = await h.call('POST', '/api/v1/interactions/batch', {
    token: key, body: [interactionBody({ risk_score: 0.85 }), interactionBody({ classifications: [classification('EMAIL')] })],
  });
  expect(batch.json()).toMatchObject({ stored: 2 });
  const alerts = (await ok('GET', `/api/v1/alerts?interaction_id=${violating.id}`)).alerts as Array<{ id: string; severity: string }>;
  expect(alerts.map((a) => a.severity).sort()).toEqual(['critical', 'high']);
  await ok('POST', `/api/v1/alerts/${alerts[0]!.id}/resolve`);
  await ok('DELETE', `/api/v1/policies/${risky.id}`);
}
