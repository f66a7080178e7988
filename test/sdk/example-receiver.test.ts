import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGovernanceClient, WEBHOOK_EVENT_TYPES, type GovernanceClient } from '../../sdk/src/index.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates } from '../helpers/https-receiver.js';
import { listen } from '../helpers/listening.js';
import { NodeProcess } from '../helpers/node-process.js';
import { freePort } from '../helpers/process.js';
import { STORES } from '../helpers/stores.js';
import { deliveryEnv } from '../helpers/webhooks-fixtures.js';

const RECEIVER = join(import.meta.dirname, '../../examples/receiver/receiver.mjs');

/** One HTTPS POST to the receiver, trusting the test CA. */
function post(port: number, caFile: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; contentType: string | undefined; body: string }>((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', ca: readFileSync(caFile), headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.each(STORES)('the example receiver as a process, with real deliveries [%s]', (kind) => {
  const certificates = createTestCertificates();
  const dir = mkdtempSync(join(tmpdir(), 'ugs-receiver-'));
  let h: Harness;
  let t: TestTenant;
  let client: GovernanceClient;
  let receiver: NodeProcess;
  let port: number;
  beforeAll(async () => {
    h = await Harness.start(kind, { workers: true, env: deliveryEnv(certificates) });
    t = await h.tenant();
    client = createGovernanceClient({ baseUrl: await listen(h.app), token: t.adminToken });
    port = await freePort();
    const created = await client.POST('/api/v1/webhooks', { body: { url: `https://127.0.0.1:${port}/`, events: [...WEBHOOK_EVENT_TYPES] } });
    // As the printed curl of webhooks:local saves it: the create's whole answer.
    writeFileSync(join(dir, 'webhook.json'), JSON.stringify(created));
    writeFileSync(join(dir, 'server.pem'), certificates.cert);
    writeFileSync(join(dir, 'server.key'), certificates.key);
    receiver = NodeProcess.start(RECEIVER, [], {
      PORT: String(port), TLS_CERT_FILE: join(dir, 'server.pem'), TLS_KEY_FILE: join(dir, 'server.key'),
      WEBHOOK_SECRET_FILE: join(dir, 'webhook.json'),
    });
    await receiver.waitFor((p) => p.stderr.includes('listening'));
  });
  afterAll(async () => {
    await receiver?.stop();
    await h.close();
  });

  const printedEvents = () => receiver.lines.map((line) => JSON.parse(line) as { id: string; event_type: string; data: { id?: string } });

  it('prints each delivered event on one line, as it was signed', async () => {
    const policy = await client.POST('/api/v1/policies', { body: { name: 'printed', action: 'log' } });
    await client.POST('/api/v1/policies/{policy_id}/disable', { params: { path: { policy_id: policy.id } } });
    await receiver.waitFor(() => printedEvents().some((event) => event.event_type === 'policy.disabled'));
    const events = printedEvents().filter((event) => event.data.id === policy.id);
    expect(events.map((event) => event.event_type)).toEqual(['policy.created', 'policy.disabled']);
    expect(events[0]).toMatchObject({ tenant_id: t.tenantId, data: { name: 'printed', enabled: true } });
  });

  it('answers 401 with a JSON error to a delivery whose signature does not verify, and prints nothing for it', async () => {
    const body = JSON.stringify({ id: 'evt_forged', timestamp: new Date().toISOString(), event_type: 'user.deleted', tenant_id: t.tenantId, data: { id: 'x' } });
    const wrongSecret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const seconds = String(Math.floor(Date.now() / 1000));
    const forged = createHmac('sha256', Buffer.from(wrongSecret.slice(6), 'base64')).update(`evt_forged.${seconds}.${body}`).digest('base64');

    for (const headers of <Array<Record<string, string>>>[
      { 'content-type': 'application/json', 'webhook-id': 'evt_forged', 'webhook-timestamp': seconds, 'webhook-signature': `v1,${forged}` },
      { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
      { 'content-type': 'application/json' },
    ]) {
      const answer = await post(port, certificates.caFile, body, headers);
      expect(answer.status).toBe(401);
      expect(answer.contentType).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body)).toEqual({ error: expect.any(String) });
    }
    // Real deliveries of the earlier test's audit entries may still arrive meanwhile: look for the forged id only.
    expect(printedEvents().filter((event) => event.id === 'evt_forged')).toEqual([]);
    expect(receiver.stderr).toContain('rejected a delivery');
  });

  it('handles a redelivered event once: answers 2xx, prints it only the first time', async () => {
    const policy = await client.POST('/api/v1/policies', { body: { name: 'redelivered', action: 'log' } });
    await receiver.waitFor(() => printedEvents().some((event) => event.data.id === policy.id));
    const eventId = printedEvents().find((event) => event.data.id === policy.id)!.id;
    const webhook = (await client.GET('/api/v1/webhooks')).webhooks[0]!;
    const attemptsOf = async () => {
      const attempts = [];
      for await (const delivery of client.items('/api/v1/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: webhook.id } } })) {
        if (delivery.event_id === eventId) attempts.push(delivery);
      }
      return attempts;
    };
    // The receiver prints the event before the service records the attempt (outcomes are recorded in batches).
    for (let i = 0; i < 200 && (await attemptsOf()).length < 1; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const [first] = await attemptsOf();
    expect(first).toMatchObject({ success: true });

    await client.POST('/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
      params: { path: { webhook_id: webhook.id, delivery_id: first!.id } },
    });
    for (let i = 0; i < 200 && (await attemptsOf()).length < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const attempts = await attemptsOf();
    expect(attempts.map((attempt) => [attempt.status_code, attempt.success])).toEqual([[200, true], [200, true]]);
    expect(printedEvents().filter((event) => event.id === eventId)).toHaveLength(1);
    expect(receiver.stderr).toContain(`${eventId} (policy.created) again`);
  });
});
