import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/platform/outbox/event-types.js';
import { type CatalogItem, catalogValidators } from '../helpers/events-fixtures.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { causeEveryEvent } from '../helpers/every-event.js';
import { STORES } from '../helpers/stores.js';
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

  it('sends, for every type the service emits, bodies that its catalog schema accepts (closed: nothing undeclared)', async () => {
    const t = await h.tenant();
    const path = `/all-${t.tenantId}`;
    await createWebhook(h, t, { url: receiver.url(path), events: EVENT_TYPES });
    const catalog = (await ok('GET', '/api/v1/event-types', t)).event_types as CatalogItem[];
    const check = catalogValidators(catalog);

    await causeEveryEvent(h, t);
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
