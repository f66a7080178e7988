import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/modules/delivery/delivery.worker.js';
import { Harness } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver, type ReceivedRequest } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import {
  bodyOf, createWebhook, deliveryEnv, emitEvent, standardSignatureOf, verifyGithubStyle, verifyStandard,
} from '../helpers/webhooks-fixtures.js';

const HOUR = 3600 * 1000;

describe.each(STORES)('webhook secrets [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  let worker: DeliveryWorker;
  const logLines: string[] = [];
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start(kind, { workers: false, env: deliveryEnv(certificates) });
    // This file's worker logs everything, down to trace, into memory.
    const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });
    worker = new DeliveryWorker(h.deps, logger, { pollIntervalMs: 50 });
    await worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await h.close();
    await receiver.close();
  });

  async function deliveryOf(eventId: string): Promise<ReceivedRequest> {
    await receiver.waitFor((requests) => requests.some((request) => bodyOf(request).id === eventId));
    return receiver.requests.find((request) => bodyOf(request).id === eventId)!;
  }

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url('/rotation'), events: ['policy.updated'] });
    const oldSecret = created.signing_secret;
    const before = await deliveryOf((await emitEvent(h, t.tenantId, 'policy.updated', { id: 'p0' })).id);
    expect(before.headers['webhook-signature']!.split(' ')).toHaveLength(1);

    const rotation = await h.call('POST', `/api/v1/webhooks/${created.id}/rotate-secret`, { token: t.adminToken });
    const newSecret = rotation.json().signing_secret as string;
    const during = await deliveryOf((await emitEvent(h, t.tenantId, 'policy.updated', { id: 'p1' })).id);
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyStandard(newSecret, during)).toEqual(bodyOf(during));
    expect(verifyStandard(oldSecret, during)).toEqual(bodyOf(during));
    expect(verifyGithubStyle(newSecret, during.rawBody, during.headers['x-service-signature'])).toBe(true);
    expect(verifyGithubStyle(oldSecret, during.rawBody, during.headers['x-service-signature'])).toBe(false);

    try {
      h.clock.advance(23 * HOUR);
      const late = await deliveryOf((await emitEvent(h, t.tenantId, 'policy.updated', { id: 'p2' })).id);
      expect(late.headers['webhook-signature']!.split(' ').sort()).toEqual(
        [standardSignatureOf(newSecret, late), standardSignatureOf(oldSecret, late)].sort());

      h.clock.advance(HOUR + 60_000);
      const after = await deliveryOf((await emitEvent(h, t.tenantId, 'policy.updated', { id: 'p3' })).id);
      expect(after.headers['webhook-signature']).toBe(standardSignatureOf(newSecret, after));
      expect(after.headers['webhook-signature']).not.toContain(standardSignatureOf(oldSecret, after).slice(3));
      expect(verifyGithubStyle(newSecret, after.rawBody, after.headers['x-service-signature'])).toBe(true);
    } finally {
      h.clock.reset();
    }
  });

  it('never writes secrets, tokens or custom header values to the logs, nor returns them from reads', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, {
      url: receiver.url('/logs'), events: ['user.invited'],
      auth_token: 'bearer-secret-0001', headers: { 'X-Api-Key': 'header-secret-0001' },
    });
    const rotated = (await h.call('POST', `/api/v1/webhooks/${created.id}/rotate-secret`, { token: t.adminToken })).json();
    await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body: { auth_token: 'bearer-secret-0002' } });
    // One success, then a chain that fails to the end (the webhook is disabled).
    const delivered = await emitEvent(h, t.tenantId, 'user.invited', { id: 'u1' });
    await deliveryOf(delivered.id);
    receiver.fallback = { status: 500 };
    try {
      await emitEvent(h, t.tenantId, 'user.invited', { id: 'u2' });
      await expect.poll(async () => (await h.call('GET', `/api/v1/webhooks/${created.id}`, { token: t.adminToken })).json().active,
        { timeout: 10_000 }).toBe(false);
    } finally {
      receiver.fallback = { status: 200 };
    }
    const secrets = [created.signing_secret, rotated.signing_secret, 'bearer-secret-0001', 'bearer-secret-0002', 'header-secret-0001'];
    const logs = logLines.join('');
    expect(logs).toContain(created.id);
    expect(logs).toContain('webhook disabled after its last failed attempt');
    for (const secret of secrets) expect(logs).not.toContain(secret);

    const reads = [
      await h.call('GET', `/api/v1/webhooks/${created.id}`, { token: t.adminToken }),
      await h.call('GET', '/api/v1/webhooks', { token: t.adminToken }),
      await h.call('GET', `/api/v1/webhooks/${created.id}/deliveries`, { token: t.adminToken }),
      await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body: { description: 'x' } }),
    ];
    for (const read of reads) {
      for (const secret of secrets.slice(0, 4)) expect(read.body).not.toContain(secret);
    }
    const audit = await h.db.selectFrom('audit_log').select('details').where('tenant_id', '=', t.tenantId).execute();
    for (const secret of secrets) expect(JSON.stringify(audit)).not.toContain(secret);
  });
});
