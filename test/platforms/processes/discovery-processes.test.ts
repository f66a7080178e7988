import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../../helpers/https-receiver.js';
import { interactionBody } from '../../helpers/interactions-fixtures.js';
import { freePort, ServiceProcess } from '../../helpers/process.js';
import { bodyOf, createWebhook, deliveryEnv, sleep, verifyGithubStyle } from '../../helpers/webhooks-fixtures.js';

// Two service processes on one database: only a PostgreSQL server allows that.
describe.skipIf(!process.env.TEST_DATABASE_URL)('platform discovery across service processes [postgres]', () => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  const services: ServiceProcess[] = [];
  const bases: string[] = [];
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start('postgres', { env: deliveryEnv(certificates) });
    for (let i = 0; i < 2; i += 1) {
      const port = await freePort();
      const service = ServiceProcess.start(['serve'], {
        ...deliveryEnv(certificates, { WEBHOOK_TIMEOUT_MS: '3000' }), DATABASE_URL: h.databaseUrl!, PORT: String(port),
        HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0',
      });
      services.push(service);
      bases.push(`http://127.0.0.1:${port}`);
      await service.waitUntilReady(`${bases[i]}/readyz`, 60_000);
    }
  });
  afterAll(async () => {
    for (const service of services) await service.stop('SIGKILL');
    await h.close();
    await receiver.close();
  });

  it('delivers one signed platform.discovered to the webhook for 50 concurrent first creates split between them', async () => {
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: receiver.url(`/discovered-${t.tenantId}`), events: ['platform.discovered'] });
    const statuses = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      const response = await fetch(`${bases[i % 2]}/api/v1/interactions`, {
        method: 'POST', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(interactionBody({ platform_id: 'acme-notes-ai', user_id: t.adminId })),
      });
      return response.status;
    }));
    expect(statuses).toEqual(Array(50).fill(201));

    const received = () => receiver.at(`/discovered-${t.tenantId}`);
    await receiver.waitFor(() => received().length >= 1, 30_000);
    await sleep(1000); // a second delivery would have come by now
    expect(received()).toHaveLength(1);
    const [request] = received();
    expect(verifyGithubStyle(hook.signing_secret, request!.rawBody, request!.headers['x-service-signature'])).toBe(true);
    expect(bodyOf(request!)).toMatchObject({
      event_type: 'platform.discovered', tenant_id: t.tenantId,
      data: { platform_id: 'acme-notes-ai', user_id: t.adminId, catalog: false, first_seen: expect.any(String) },
    });
  });
});
