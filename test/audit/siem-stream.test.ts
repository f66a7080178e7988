import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src/index.js';
import { Harness, TEST_PASSWORD } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv } from '../helpers/webhooks-fixtures.js';

// The audit log as a stream for a SIEM: every entry is an `audit.entry` event, sent only to the
// webhooks that name it.
describe.each(STORES)('the audit log as webhook events [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start(kind, { workers: true, env: deliveryEnv(certificates) });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('sends each entry (logins, role changes, deletions, exports) to subscribers only, as the audit log reads it', async () => {
    const t = await h.tenant('Streamed');
    const siem = `/siem-${t.tenantId}`;
    const other = `/other-${t.tenantId}`;
    const { signing_secret: secret } = await createWebhook(h, t, { url: receiver.url(siem), events: ['audit.entry'] });
    await createWebhook(h, t, { url: receiver.url(other), events: ['interaction.created', 'user.role_changed'] });

    const viewer = await h.user(t, 'viewer');
    await h.login(t.adminEmail, TEST_PASSWORD);
    await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: 'wrong-password-1A' } });
    expect((await h.call('PUT', `/api/v1/users/${viewer.id}`, { token: t.adminToken, body: { role: 'admin' } })).statusCode).toBe(200);
    const created = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody() });
    expect((await h.call('DELETE', `/api/v1/interactions/${created.json().id}`, { token: t.adminToken })).statusCode).toBe(204);
    expect((await h.call('GET', '/api/v1/interactions/export', { token: t.adminToken })).statusCode).toBe(200);

    const expected = ['auth.login', 'auth.login_failed', 'user.role_changed', 'interaction.deleted', 'interactions.exported'];
    const streamed = () => receiver.at(siem).map(bodyOf).filter((body) => body.data && expected.includes((body.data as { action: string }).action));
    await receiver.waitFor(() => new Set(streamed().map((body) => (body.data as { action: string }).action)).size === expected.length, 20_000);

    const log = (await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { limit: 500 } })).json().entries as Array<{ id: string }>;
    for (const request of receiver.at(siem)) {
      // Signed with the webhook's secret, under both schemes.
      const expectedHmac = `sha256=${createHmac('sha256', secret).update(request.rawBody).digest('hex')}`;
      expect(request.headers['x-service-signature']).toBe(expectedHmac);
      expect(verifyWebhook(request.rawBody, request.headers, secret, { scheme: 'standard-webhooks' }).event_type).toBe('audit.entry');
      const body = bodyOf(request);
      expect(body.event_type).toBe('audit.entry');
      expect(body.tenant_id).toBe(t.tenantId);
      expect(body.data).toEqual(log.find((entry) => entry.id === (body.data as { id: string }).id));
    }
    // The webhook that did not name audit.entry got its own events and no audit entry.
    await receiver.waitFor(() => receiver.at(other).length >= 2, 20_000);
    // Delivery is at least once: a retry after a slow answer may bring an event twice (same id).
    const events = new Map(receiver.at(other).map(bodyOf).map((body) => [body.id, body.event_type]));
    expect([...events.values()].sort()).toEqual(['interaction.created', 'user.role_changed']);
  });
});
