import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshSample } from '../../../src/edge/event-catalog/event-samples.js';
import { EVENT_TYPES, type EventType } from '../../../src/platform/outbox/event-types.js';
import { causeEveryEvent } from '../../helpers/every-event.js';
import { Harness, type TestTenant } from '../../helpers/harness.js';
import { createTestCertificates } from '../../helpers/https-receiver.js';
import { RsyslogReceiver, type RsyslogRecord, rsyslogMissing } from '../../helpers/rsyslog.js';
import { STORES } from '../../helpers/stores.js';
import { parseCef, parseSyslogMessage } from '../../helpers/syslog-parser.js';
import { createWebhook, deliveryEnv, emitEvent } from '../../helpers/webhooks-fixtures.js';

/** One received message, read strictly from its raw text, and checked against rsyslog's own parse of it. */
function readRecord(record: RsyslogRecord) {
  const message = parseSyslogMessage(record.raw);
  expect(record).toMatchObject({
    pri: String(message.facility * 8 + message.severity), app: 'ugs', procid: message.procId, msgid: message.msgId, msg: message.msg,
  });
  return { message, cef: parseCef(message.msg) };
}

/** TLS connections this process opens to `port`, observed as they are made. */
function watchConnections(port: number) {
  const sockets: Socket[] = [];
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    socket.once('secureConnect', () => {
      if (socket.remotePort === port) sockets.push(socket);
    });
  };
  subscribe('net.client.socket', onSocket);
  return { sockets, stop: () => unsubscribe('net.client.socket', onSocket) };
}

/** How long a delivery and its recording may take on a loaded machine. */
const WAIT = { timeout: 15_000 };

interface Delivery {
  event_id: string;
  success: boolean;
  status_code: number;
  format: string;
  error?: string | null;
  attempt: number;
}

describe.skipIf(rsyslogMissing !== null).each(STORES)('syslog webhooks into rsyslog [%s]', (kind) => {
  const certificates = createTestCertificates();
  const receivers: RsyslogReceiver[] = [];
  let h: Harness;
  beforeAll(async () => {
    // Seven attempts over about 13 s: room for a receiver to come back between two of them. The
    // timeout is the service's default, which a loaded machine's TLS handshakes stay within.
    h = await Harness.start(kind, {
      workers: true,
      env: deliveryEnv(certificates, { WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_RETRY_DELAYS_MS: '0,200,400,800,1600,3200,6400' }),
    });
  });
  afterAll(async () => {
    await h?.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function rsyslog(certs = certificates): Promise<RsyslogReceiver> {
    const receiver = await RsyslogReceiver.start(certs);
    receivers.push(receiver);
    return receiver;
  }
  const history = async (t: TestTenant, webhookId: string): Promise<Delivery[]> =>
    (await h.call('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: t.adminToken, query: { limit: 500 } })).json().deliveries;
  const emitSample = (t: TestTenant, type: EventType, data?: unknown) =>
    emitEvent(h, t.tenantId, type, data ?? freshSample(type, t.tenantId, new Date()).data);

  it('delivers every event type as a CEF line in an RFC 5424 message, over TLS, with the event\'s fields', async () => {
    const receiver = await rsyslog();
    const t = await h.tenant();
    const webhook = await createWebhook(h, t, { url: receiver.url(), format: 'syslog', events: EVENT_TYPES });
    expect(webhook).toMatchObject({ format: 'syslog', url: receiver.url() });
    await causeEveryEvent(h, t);

    const types = () => new Set(receiver.records().map((record) => record.msgid));
    await receiver.waitFor(() => EVENT_TYPES.every((type) => types().has(type)), 30_000);
    const read = receiver.records().map(readRecord);
    for (const { message, cef } of read) {
      expect(message.appName).toBe('ugs');
      expect(message.structuredData['ugs@32473']).toEqual({ tenant_id: t.tenantId, event_id: cef.extension.externalId });
      expect(cef).toMatchObject({ vendor: 'UsageGovernance', product: 'ugs', signatureId: message.msgId });
      expect(cef.extension).toMatchObject({ cat: message.msgId, cs1Label: 'tenantId', cs1: t.tenantId, msg: cef.name });
      expect(Number(cef.extension.rt)).toBe(Date.parse(message.timestamp));
      expect(message.facility).toBe(message.msgId === 'audit.entry' ? 10 : 20);
    }
    // What each family carries, as the service emitted it.
    const of = (type: string) => read.filter(({ message }) => message.msgId === type).map(({ cef }) => cef);
    const received = new Set(read.map(({ cef }) => cef.extension.externalId));
    expect(received.size).toBe(read.length);
    expect(of('interaction.created')[0]!.extension).toMatchObject({ cs2Label: 'platformId', cs6Label: 'subjectId', cn1Label: 'riskScore' });
    expect(of('policy.created')[0]!.extension).toMatchObject({ cs4Label: 'policyId', cs5Label: 'policyName', act: expect.any(String) });
    expect(of('alert.created')[0]!.extension).toMatchObject({ outcome: 'open', cs4: expect.any(String) });
    expect(of('user.invited')[0]!.extension.duser).toEqual(expect.any(String));
    expect(of('audit.entry').map((cef) => cef.extension.act)).toContain('webhook.created');

    // The history: a successful attempt for each event received and for no other, status_code 0 (no
    // answer in syslog), format syslog. (A loaded machine may add a failed attempt that was retried.)
    const delivered = async () => (await history(t, webhook.id)).filter((d) => d.success).map((d) => d.event_id);
    await expect.poll(async () => new Set(await delivered()), WAIT).toEqual(received);
    expect(await delivered()).toHaveLength(received.size);
    const attempts = await history(t, webhook.id);
    expect(new Set(attempts.map((d) => [d.status_code, d.format].join()))).toEqual(new Set(['0,syslog']));
  }, 120_000);

  it('delivers hostile values intact and never a detected value: escaping and octet counting hold at a real receiver', async () => {
    const receiver = await rsyslog();
    const t = await h.tenant();
    await createWebhook(h, t, { url: receiver.url(), format: 'syslog', events: ['interaction.classified', 'policy.created'] });
    const hostile = 'No|pipes\\here=there\nnew line\r "quoted" ] ünïcødé 日本 🙂';
    const policy = freshSample('policy.created', t.tenantId, new Date()).data as Record<string, unknown>;
    await emitSample(t, 'policy.created', { ...policy, name: hostile });
    const classified = freshSample('interaction.classified', t.tenantId, new Date()).data as { classifications: Array<{ value: string }> };
    await emitSample(t, 'interaction.classified', classified);
    // Several messages in a row on one connection: each must come out whole.
    for (let i = 0; i < 3; i += 1) await emitSample(t, 'policy.created', { ...policy, name: `${hostile} ${i}` });

    const records = await receiver.waitFor((all) => all.length >= 5);
    const policies = records.map(readRecord).filter(({ message }) => message.msgId === 'policy.created').map(({ cef }) => cef);
    expect(policies.map((cef) => cef.extension.cs5).sort()).toEqual([hostile, `${hostile} 0`, `${hostile} 1`, `${hostile} 2`]);
    expect(policies[0]!.name).toContain(hostile.replace(/[\r\n]/g, ' '));
    const raw = records.map((record) => record.raw).join('\n');
    for (const { value } of classified.classifications) expect(raw).not.toContain(value);
    expect(raw).toContain('CREDIT_CARD');
  });

  it('keeps one connection across sends, and connects again after the receiver restarts', async () => {
    const receiver = await rsyslog();
    const connections = watchConnections(receiver.port);
    try {
      const t = await h.tenant();
      const webhook = await createWebhook(h, t, { url: receiver.url(), format: 'syslog', events: ['alert.created'] });
      await emitSample(t, 'alert.created');
      await receiver.waitFor((records) => records.length >= 1);
      const opened = connections.sockets.length;
      expect(opened).toBeGreaterThanOrEqual(1);
      for (let i = 2; i <= 4; i += 1) {
        await emitSample(t, 'alert.created');
        await receiver.waitFor((records) => records.length >= i);
      }
      expect(connections.sockets).toHaveLength(opened);

      await receiver.pause();
      await receiver.resume();
      // The receiver closed the connection: the transport sees it before the next send.
      await expect.poll(() => connections.sockets.every((socket) => socket.destroyed), WAIT).toBe(true);
      const last = await emitSample(t, 'alert.created');
      await receiver.waitFor((records) => records.length >= 5);
      expect(connections.sockets.length).toBeGreaterThan(opened);
      expect(readRecord(receiver.records()[4]!).cef.extension.externalId).toBe(last.id);
      await expect.poll(async () => (await history(t, webhook.id)).filter((d) => d.success).length, WAIT).toBe(5);
    } finally {
      connections.stop();
    }
  });

  it('retries while the receiver is down and delivers once it is back', async () => {
    const receiver = await rsyslog();
    const t = await h.tenant();
    const webhook = await createWebhook(h, t, { url: receiver.url(), format: 'syslog', events: ['interaction.high_risk'] });
    await receiver.pause();
    const event = await emitSample(t, 'interaction.high_risk');
    await expect.poll(async () => (await history(t, webhook.id)).filter((d) => !d.success).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    expect(receiver.records()).toEqual([]);
    await receiver.resume();

    const [record] = await receiver.waitFor((records) => records.length >= 1, 20_000);
    expect(readRecord(record!).cef.extension.externalId).toBe(event.id);
    await expect.poll(async () => (await history(t, webhook.id)).some((d) => d.success), WAIT).toBe(true);
    const attempts = await history(t, webhook.id);
    expect(attempts.every((d) => d.event_id === event.id && d.format === 'syslog' && d.status_code === 0)).toBe(true);
    const failed = attempts.filter((d) => !d.success);
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(failed.every((d) => typeof d.error === 'string' && d.error !== '')).toBe(true);
    expect((await h.call('GET', `/api/v1/webhooks/${webhook.id}`, { token: t.adminToken })).json().active).toBe(true);
  });

  it('disables a syslog webhook whose receiver stays down, after the last attempt of an event', async () => {
    const receiver = await rsyslog();
    await receiver.pause();
    const t = await h.tenant();
    const webhook = await createWebhook(h, t, { url: receiver.url(), format: 'syslog', events: ['alert.created'] });
    await emitSample(t, 'alert.created');
    await expect.poll(async () => (await h.call('GET', `/api/v1/webhooks/${webhook.id}`, { token: t.adminToken })).json().active,
      { timeout: 60_000 }).toBe(false);
    const attempts = await history(t, webhook.id);
    expect(attempts.map((d) => [d.attempt, d.success]).sort()).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => [n, false]));
    const disabled = await h.db.selectFrom('audit_log').select('details').where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'webhook.disabled').where('target_id', '=', webhook.id).execute();
    expect(disabled).toHaveLength(1);
  }, 120_000);

  it('refuses a receiver whose certificate no trusted CA issued: nothing is written, the attempt fails', async () => {
    const untrusted = await rsyslog(createTestCertificates());
    const t = await h.tenant();
    const webhook = await createWebhook(h, t, { url: untrusted.url(), format: 'syslog', events: ['alert.created'] });
    const tested = await h.call('POST', `/api/v1/webhooks/${webhook.id}/test`, { token: t.adminToken, body: { event_type: 'alert.created' } });
    expect(tested.json()).toMatchObject({ delivered: false, status_code: 0, error: expect.stringMatching(/certificate|UNABLE_TO_VERIFY/i) });
    await emitSample(t, 'alert.created');
    await expect.poll(async () => (await history(t, webhook.id)).filter((d) => !d.success).length, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(2);
    expect(untrusted.records()).toEqual([]);

    // The same receiver with the trusted CA's certificate takes the test send.
    const trusted = await rsyslog();
    const moved = await h.call('PUT', `/api/v1/webhooks/${webhook.id}`, { token: t.adminToken, body: { url: trusted.url() } });
    expect(moved.statusCode).toBe(200);
    const again = await h.call('POST', `/api/v1/webhooks/${webhook.id}/test`, { token: t.adminToken, body: { event_type: 'policy.created' } });
    expect(again.json()).toMatchObject({ delivered: true, status_code: 0 });
    const [record] = await trusted.waitFor((records) => records.some((r) => r.msgid === 'policy.created'));
    expect(readRecord(record!).cef.extension.cs1).toBe(t.tenantId);
  });
});

if (rsyslogMissing) {
  describe('syslog webhooks into rsyslog', () => {
    it.skip(`skipped: ${rsyslogMissing}`, () => {});
  });
}
