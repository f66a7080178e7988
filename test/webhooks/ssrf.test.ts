import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { AppError } from '../../src/kernel/errors.js';
import { WEBHOOK_FORMATS } from '../../src/kernel/vocabulary.js';
import { blockedAddressReason } from '../../src/modules/delivery/target-guard.js';
import { checkWebhookUrl } from '../../src/modules/webhooks/webhooks.validation.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { createWebhook, emitEvent } from '../helpers/webhooks-fixtures.js';

/** Every form of a non-public target the create and update checks must refuse (no connection is made). */
const BLOCKED_URLS = [
  'https://127.0.0.1/hook', 'https://127.255.255.254/', 'https://2130706433/', 'https://0x7f000001/',
  'https://0177.0.0.1/', 'https://017700000001/', 'https://127.1/', 'https://0x7f.1/', 'https://localhost/',
  'https://LOCALHOST./', 'https://[::1]/', 'https://[0:0:0:0:0:0:0:1]/', 'https://[::ffff:127.0.0.1]/',
  'https://[::ffff:7f00:1]/', 'https://[::ffff:10.0.0.1]/', 'https://[::ffff:8.8.8.8]/', 'https://0.0.0.0/',
  'https://0/', 'https://[::]/', 'https://10.0.0.1/', 'https://10.255.255.255/', 'https://172.16.0.1/',
  'https://172.31.255.255/', 'https://192.168.1.1/', 'https://169.254.169.254/latest/meta-data/',
  'https://2852039166/', 'https://100.64.0.1/', 'https://100.100.100.200/', 'https://198.18.0.1/',
  'https://224.0.0.1/', 'https://239.255.255.250/', 'https://255.255.255.255/', 'https://240.0.0.1/',
  'https://[fe80::1]/', 'https://[fd00:ec2::254]/', 'https://[fc00::1]/', 'https://[ff02::1]/',
  'https://[64:ff9b::7f00:1]/', 'https://[2002:7f00:1::]/', 'https://[::127.0.0.1]/',
];

/** How a refusal of a non-public target tells the way to allow it (local tests, on-premise). */
const HINT = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true';
const HINT_SENTENCE = 'to allow private and loopback receivers (local tests, on-premise installs), start the service with WEBHOOK_ALLOW_PRIVATE_TARGETS=true';

/** Loopback in its several spellings: refused when connecting, without ever reaching the receiver. */
const LOOPBACK_HOSTS = ['127.0.0.1', '2130706433', '0x7f000001', '0177.0.0.1', '127.1', '[::1]', '[::ffff:127.0.0.1]', 'localhost', '0.0.0.0'];

describe.each(STORES)('webhook target addresses [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start(kind, {
      workers: true,
      env: { WEBHOOK_CA_FILE: certificates.caFile, WEBHOOK_RETRY_DELAYS_MS: '0', WEBHOOK_TIMEOUT_MS: '1000' },
    });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  /** A webhook whose host was public when registered and now points at `url` (as after a DNS change). */
  async function retargeted(t: TestTenant, url: string, events: string[] = ['user.invited']): Promise<string> {
    const created = await createWebhook(h, t, { url: 'https://93.184.215.14/hook', events });
    await h.db.updateTable('webhooks').set({ url }).where('tenant_id', '=', t.tenantId).where('id', '=', created.id).execute();
    return created.id;
  }

  it('refuses every non-public address form at create and at update, and accepts a public address', async () => {
    const t = await h.tenant();
    for (const url of BLOCKED_URLS) {
      const response = await h.call('POST', '/api/v1/webhooks', { token: t.adminToken, body: { url, events: ['user.invited'] } });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().code).toBe('validation_error');
      expect(response.json().details[0].path).toBe('body.url');
      expect(response.json().error, url).toMatch(/not a public address|could not be resolved/);
      if (/not a public address/.test(response.json().error)) expect(response.json().error, url).toContain(HINT);
    }
    expect(await h.db.selectFrom('webhooks').selectAll().where('tenant_id', '=', t.tenantId).execute()).toHaveLength(0);

    const accepted = await createWebhook(h, t, { url: 'https://93.184.215.14/hook', events: ['user.invited'] });
    for (const url of BLOCKED_URLS.slice(0, 12)) {
      const response = await h.call('PUT', `/api/v1/webhooks/${accepted.id}`, { token: t.adminToken, body: { url } });
      expect(response.statusCode, url).toBe(400);
      if (/not a public address/.test(response.json().error)) expect(response.json().error, url).toContain(HINT);
    }
    const stored = await h.db.selectFrom('webhooks').select('url').where('tenant_id', '=', t.tenantId).executeTakeFirstOrThrow();
    expect(stored.url).toBe('https://93.184.215.14/hook');
  });

  it('names the setting that allows private targets when it refuses one, at create and at update', async () => {
    const t = await h.tenant();
    const expected = `host 127.0.0.1 is not a public address (loopback); ${HINT_SENTENCE}`;
    const created = await h.call('POST', '/api/v1/webhooks', { token: t.adminToken, body: { url: 'https://127.0.0.1:8443/hook', events: ['user.invited'] } });
    expect(created.statusCode).toBe(400);
    expect(created.json()).toEqual({
      error: `Invalid request: body.url ${expected}`, code: 'validation_error', details: [{ path: 'body.url', message: expected }],
    });
    const accepted = await createWebhook(h, t, { url: 'https://93.184.215.14/hook', events: ['user.invited'] });
    const updated = await h.call('PUT', `/api/v1/webhooks/${accepted.id}`, { token: t.adminToken, body: { url: 'https://localhost/hook' } });
    expect(updated.statusCode).toBe(400);
    expect(updated.json().details).toEqual([{
      path: 'body.url', message: expect.stringMatching(/^host localhost resolves to (127\.0\.0\.1|::1), which is not a public address \(loopback\); /),
    }]);
    expect(updated.json().details[0].message).toContain(HINT_SENTENCE);
  });

  it('applies the same address rules to the ocsf format: at create, at update, and to the kept URL when only the format changes', async () => {
    const t = await h.tenant();
    for (const url of BLOCKED_URLS.slice(0, 12)) {
      const response = await h.call('POST', '/api/v1/webhooks', { token: t.adminToken, body: { url, format: 'ocsf', events: ['user.invited'] } });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().details[0].path).toBe('body.url');
    }
    const accepted = await createWebhook(h, t, { url: 'https://93.184.215.14/hook', format: 'ocsf', events: ['user.invited'] });
    const moved = await h.call('PUT', `/api/v1/webhooks/${accepted.id}`, { token: t.adminToken, body: { url: 'https://10.0.0.1/hook' } });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().error).toContain(HINT);

    // A URL that turned private (a DNS change, a row of an earlier check) is checked again when the format changes.
    const id = await retargeted(t, 'https://127.0.0.1/hook');
    const reformatted = await h.call('PUT', `/api/v1/webhooks/${id}`, { token: t.adminToken, body: { format: 'ocsf' } });
    expect(reformatted.statusCode).toBe(400);
    expect(reformatted.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'body.url' }] });
    const rows = await h.db.selectFrom('webhooks').select(['id', 'url', 'format']).where('tenant_id', '=', t.tenantId).orderBy('id').execute();
    expect(rows.map((row) => [row.url, row.format])).toEqual([['https://93.184.215.14/hook', 'ocsf'], ['https://127.0.0.1/hook', 'standard']]);
  });

  it('refuses loopback targets when an ocsf webhook connects, as for any format', async () => {
    const t = await h.tenant();
    const id = await retargeted(t, `https://127.0.0.1:${receiver.port}/hook`);
    await h.db.updateTable('webhooks').set({ format: 'ocsf' }).where('tenant_id', '=', t.tenantId).where('id', '=', id).execute();
    const response = await h.call('POST', `/api/v1/webhooks/${id}/test`, { token: t.adminToken, body: { event_type: 'alert.created' } });
    expect(response.json()).toMatchObject({ delivered: false, status_code: 0, error: expect.stringContaining(HINT) });
    expect(receiver.requests).toHaveLength(0);
  });

  it('applies the same address rules to the syslog format: at create, at update, and when it connects', async () => {
    const t = await h.tenant();
    for (const host of ['127.0.0.1', '[::1]', 'localhost', '10.0.0.1', '169.254.169.254', '0x7f000001', '[::ffff:127.0.0.1]']) {
      const url = `syslog+tls://${host}:6514`;
      const response = await h.call('POST', '/api/v1/webhooks', { token: t.adminToken, body: { url, format: 'syslog', events: ['user.invited'] } });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({ code: 'validation_error', details: [{ path: 'body.url' }] });
      expect(response.json().error, url).toContain(HINT);
    }
    const accepted = await createWebhook(h, t, { url: 'syslog+tls://93.184.215.14:6514', format: 'syslog', events: ['user.invited'] });
    const moved = await h.call('PUT', `/api/v1/webhooks/${accepted.id}`, { token: t.adminToken, body: { url: 'syslog+tls://192.168.1.1:6514' } });
    expect(moved.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'body.url' }] });

    // A host that turned private since: refused when connecting, by address and by name.
    for (const host of ['127.0.0.1', 'localhost']) {
      const id = await retargeted(t, `syslog+tls://${host}:${receiver.port}`);
      await h.db.updateTable('webhooks').set({ format: 'syslog' }).where('tenant_id', '=', t.tenantId).where('id', '=', id).execute();
      const response = await h.call('POST', `/api/v1/webhooks/${id}/test`, { token: t.adminToken, body: { event_type: 'alert.created' } });
      expect(response.json(), host).toMatchObject({ delivered: false, status_code: 0, error: expect.stringContaining(HINT) });
      expect(response.json().error, host).toMatch(/is not public \(loopback\)/);
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses loopback targets when connecting (test operation): status_code 0 and an error, nothing received', async () => {
    const t = await h.tenant();
    for (const host of LOOPBACK_HOSTS) {
      const id = await retargeted(t, `https://${host}:${receiver.port}/hook`);
      const response = await h.call('POST', `/api/v1/webhooks/${id}/test`, { token: t.adminToken, body: { event_type: 'user.invited' } });
      expect(response.statusCode).toBe(200);
      expect(response.json(), host).toMatchObject({ delivered: false, status_code: 0 });
      expect(response.json().error, host).toMatch(/is not public \((loopback|IPv4-mapped|unspecified)\)/);
      expect(response.json().error, host).toContain(HINT);
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses loopback targets when the worker connects: the attempt is recorded with status_code 0', async () => {
    const t = await h.tenant();
    const id = await retargeted(t, `https://localhost:${receiver.port}/hook`);
    await emitEvent(h, t.tenantId, 'user.invited', { id: 'u1' });
    const history = async () => (await h.call('GET', `/api/v1/webhooks/${id}/deliveries`, { token: t.adminToken })).json();
    await expect.poll(async () => (await history()).total).toBe(1);
    const [attempt] = (await history()).deliveries;
    expect(attempt).toMatchObject({ status_code: 0, success: false, attempt: 1 });
    expect(attempt.error).toMatch(/refused to connect to localhost: address (127\.0\.0\.1|::1) is not public \(loopback\)/);
    expect(attempt.error).toContain(HINT);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('address rule (property tests)', () => {
  const strict = loadConfig({});
  const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
  const toInt = ([a, b, c, d]: number[]) => ((a! << 24) >>> 0) + (b! << 16) + (c! << 8) + d!;
  const forms = (o: number[]) => {
    const n = toInt(o);
    return [
      o.join('.'), String(n), `0x${n.toString(16)}`, o.map((x) => `0${x.toString(8)}`).join('.'),
      `${o[0]}.${(o[1]! << 16) + (o[2]! << 8) + o[3]!}`, `[::ffff:${o.join('.')}]`,
    ];
  };
  /** Whether every format refuses the host (the address rules are the same for all); a format that disagrees fails. */
  const refusedAtCreate = async (host: string) => {
    const urlFor = (format: string) => (format === 'syslog' ? `syslog+tls://${host}:6514` : `https://${host}/hook`);
    const verdicts = await Promise.all(WEBHOOK_FORMATS.map((format) => checkWebhookUrl(strict, urlFor(format), format)
      .then(() => false, (error: unknown) => error instanceof AppError && error.code === 'validation_error')));
    expect(new Set(verdicts).size, host).toBe(1);
    return verdicts[0]!;
  };

  it('refuses every spelling of loopback, private, link-local, CGNAT and multicast IPv4 addresses', async () => {
    const blockedRanges: Array<[number, number, number]> = [[127, 0, 8], [10, 0, 8], [172, 16, 12], [192, 168, 16], [169, 254, 16], [100, 64, 10], [224, 0, 4], [0, 0, 8]];
    await fc.assert(fc.asyncProperty(fc.constantFrom(...blockedRanges), octets, async ([first, second, prefix], random) => {
      const base = toInt([first, second, 0, 0]);
      const hostBits = 32 - prefix;
      const address = (base + (toInt(random) % 2 ** hostBits)) >>> 0;
      const o = [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255];
      for (const host of forms(o)) expect(await refusedAtCreate(host), host).toBe(true);
    }), { numRuns: 200 });
  });

  it('gives every spelling of an IPv4 address the same verdict, and always refuses IPv4-mapped IPv6', async () => {
    await fc.assert(fc.asyncProperty(octets, async (o) => {
      const verdicts = await Promise.all(forms(o).slice(0, 5).map(refusedAtCreate));
      expect(new Set(verdicts).size).toBe(1);
      expect(verdicts[0]).toBe(blockedAddressReason(o.join('.')) !== null);
      expect(await refusedAtCreate(`[::ffff:${o.join('.')}]`)).toBe(true);
    }), { numRuns: 300 });
  });

  it('accepts well-known public addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4007:80f::200e']) {
      expect(blockedAddressReason(address), address).toBeNull();
    }
  });
});
