import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { createWebhook, deliveryEnv } from '../helpers/webhooks-fixtures.js';

// `format` through the API: create, read, list, update, audit; what is refused and who may change it.
describe.each(STORES)('webhook formats in the API [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start(kind, { env: deliveryEnv(certificates), workers: false });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  const auditOf = (t: TestTenant, action: string) =>
    h.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', t.tenantId).where('action', '=', action).execute();
  const storedFormats = async (t: TestTenant) =>
    (await h.db.selectFrom('webhooks').select(['url', 'format']).where('tenant_id', '=', t.tenantId).orderBy('id').execute());

  it('creates an ocsf webhook and shows its format on create, read and list, audited; a create without one is standard', async () => {
    const t = await h.tenant();
    const ocsf = await createWebhook(h, t, { url: receiver.url('/ocsf'), format: 'ocsf', events: ['alert.created'] });
    expect(ocsf).toMatchObject({ format: 'ocsf', url: receiver.url('/ocsf'), signing_secret: expect.stringMatching(/^whsec_/) });
    const standard = await createWebhook(h, t, { url: receiver.url('/standard'), events: ['alert.created'] });
    expect(standard.format).toBe('standard');

    const read = await h.call('GET', `/api/v1/webhooks/${ocsf.id}`, { token: t.adminToken });
    expect(read.json()).toMatchObject({ id: ocsf.id, format: 'ocsf' });
    const list = await h.call('GET', '/api/v1/webhooks', { token: t.adminToken });
    expect(list.json().webhooks.map((w: { id: string; format: string }) => [w.id, w.format]))
      .toEqual([[standard.id, 'standard'], [ocsf.id, 'ocsf']]);
    const audits = await auditOf(t, 'webhook.created');
    expect(audits.map((a) => (a.details as { format: string }).format).sort()).toEqual(['ocsf', 'standard']);
  });

  it('changes the format alone or with the URL, keeps it when a PUT leaves it out, and audits the change', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url(), events: ['user.invited'] });
    const changed = await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body: { format: 'ocsf' } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ format: 'ocsf', url: receiver.url() });
    const [audit] = await auditOf(t, 'webhook.updated');
    expect(audit!.details).toEqual({ changed: ['format'], format: 'ocsf' });

    const other = await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body: { description: 'SIEM' } });
    expect(other.json()).toMatchObject({ format: 'ocsf', description: 'SIEM' });
    const both = await h.call('PUT', `/api/v1/webhooks/${created.id}`, {
      token: t.adminToken, body: { format: 'standard', url: receiver.url('/moved') },
    });
    expect(both.json()).toMatchObject({ format: 'standard', url: receiver.url('/moved') });
    expect(await storedFormats(t)).toEqual([{ url: receiver.url('/moved'), format: 'standard' }]);
  });

  it('refuses an unknown format and a URL of another scheme: 400, nothing stored', async () => {
    const t = await h.tenant();
    const valid = { url: receiver.url(), events: ['user.invited'] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...valid, format: 'SPLUNK_HEC' }, 'body.format'],
      [{ ...valid, format: 'syslog' }, 'body.url'],
      [{ ...valid, format: 'OCSF' }, 'body.format'],
      [{ ...valid, format: '' }, 'body.format'],
      [{ ...valid, format: 42 }, 'body.format'],
      [{ ...valid, format: null }, 'body.format'],
      [{ ...valid, format: ['ocsf'] }, 'body.format'],
      [{ ...valid, format: 'ocsf', url: 'http://127.0.0.1/hook' }, 'body.url'],
      [{ ...valid, format: 'ocsf', url: 'syslog+tls://127.0.0.1:6514' }, 'body.url'],
      [{ ...valid, format: 'ocsf', url: 'https://user:pass@127.0.0.1/hook' }, 'body.url'],
    ];
    for (const [body, path] of cases) {
      const response = await h.call('POST', '/api/v1/webhooks', { token: t.adminToken, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json(), JSON.stringify(body)).toMatchObject({ code: 'validation_error', details: [{ path }] });
      expect(typeof response.json().error).toBe('string');
    }
    const scheme = await h.call('POST', '/api/v1/webhooks', {
      token: t.adminToken, body: { ...valid, format: 'ocsf', url: 'http://127.0.0.1/hook' },
    });
    expect(scheme.json().details[0].message).toBe('must be an https:// URL for the ocsf format');
    expect(await storedFormats(t)).toEqual([]);
    expect(await auditOf(t, 'webhook.created')).toHaveLength(0);

    const created = await createWebhook(h, t, valid);
    for (const body of [{ format: 'syslog' }, { format: 'splunk_hec' }, { format: 7 }, { format: 'ocsf', url: 'http://127.0.0.1/' }, { url: 'syslog+tls://127.0.0.1:6514' }]) {
      const response = await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('validation_error');
    }
    expect(await storedFormats(t)).toEqual([{ url: receiver.url(), format: 'standard' }]);

    // A new URL alone is checked against the format kept.
    const ocsf = await createWebhook(h, t, { url: receiver.url('/ocsf'), format: 'ocsf', events: ['user.invited'] });
    const plain = await h.call('PUT', `/api/v1/webhooks/${ocsf.id}`, { token: t.adminToken, body: { url: 'http://127.0.0.1/ocsf' } });
    expect(plain.json().details).toEqual([{ path: 'body.url', message: 'must be an https:// URL for the ocsf format' }]);
    expect(await auditOf(t, 'webhook.updated')).toHaveLength(0);
  });

  it('creates a splunk_hec webhook only with an https:// URL and a token, and keeps it with one through every update', async () => {
    const t = await h.tenant();
    const hec = { url: receiver.url('/services/collector/event'), format: 'splunk_hec', events: ['alert.created'] };
    const refused = async (method: string, url: string, body: Record<string, unknown>, path: string, message: string) => {
      const response = await h.call(method, url, { token: t.adminToken, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json(), JSON.stringify(body)).toEqual({ error: expect.any(String), code: 'validation_error', details: [{ path, message }] });
    };
    const needsToken = 'is required for the splunk_hec format: the HEC token, sent as `Authorization: Splunk <token>`';
    await refused('POST', '/api/v1/webhooks', hec, 'body.auth_token', needsToken);
    await refused('POST', '/api/v1/webhooks', { ...hec, auth_token: '' }, 'body.auth_token', needsToken);
    await refused('POST', '/api/v1/webhooks', { ...hec, auth_token: 'hec token' }, 'body.auth_token', 'must be printable ASCII without spaces');
    await refused('POST', '/api/v1/webhooks', { ...hec, auth_token: 'tok', url: 'http://127.0.0.1:8088/services/collector/event' }, 'body.url',
      'must be an https:// URL for the splunk_hec format');
    await refused('POST', '/api/v1/webhooks', { ...hec, auth_token: 'tok', url: 'syslog+tls://127.0.0.1:6514' }, 'body.url',
      'must be an https:// URL for the splunk_hec format');
    expect(await storedFormats(t)).toEqual([]);

    const created = await createWebhook(h, t, { ...hec, auth_token: '5f1c2a8e-hec-token' });
    expect(created).toMatchObject({ format: 'splunk_hec', has_auth_token: true });
    const put = (id: string) => `/api/v1/webhooks/${id}`;
    // The token may change, never go.
    await refused('PUT', put(created.id), { auth_token: '' }, 'body.auth_token', needsToken);
    expect((await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body: { auth_token: 'rotated-token' } })).statusCode).toBe(200);
    await refused('PUT', put(created.id), { url: 'http://127.0.0.1/x' }, 'body.url', 'must be an https:// URL for the splunk_hec format');

    // A webhook without a token becomes splunk_hec only with one; leaving the format drops the requirement.
    const plain = await createWebhook(h, t, { url: receiver.url('/plain'), events: ['alert.created'] });
    await refused('PUT', put(plain.id), { format: 'splunk_hec' }, 'body.auth_token', needsToken);
    const moved = await h.call('PUT', `/api/v1/webhooks/${plain.id}`, { token: t.adminToken, body: { format: 'splunk_hec', auth_token: 'tok' } });
    expect(moved.json()).toMatchObject({ format: 'splunk_hec', has_auth_token: true });
    const back = await h.call('PUT', `/api/v1/webhooks/${plain.id}`, { token: t.adminToken, body: { format: 'standard', auth_token: '' } });
    expect(back.json()).toMatchObject({ format: 'standard', has_auth_token: false });
    expect((await auditOf(t, 'webhook.updated')).map((a) => a.details)).toHaveLength(3);
  });

  it('takes a syslog+tls://host:port URL for the syslog format, and refuses any other shape with the error body', async () => {
    const t = await h.tenant();
    const events = ['alert.created'];
    const created = await createWebhook(h, t, { url: 'syslog+tls://127.0.0.1:6514', format: 'syslog', events });
    expect(created).toMatchObject({ url: 'syslog+tls://127.0.0.1:6514', format: 'syslog' });
    expect((await createWebhook(h, t, { url: 'syslog+tls://[::1]:514', format: 'syslog', events })).format).toBe('syslog');
    const refused: Array<[string, string]> = [
      ['syslog+tls://127.0.0.1', 'must give a port from 1 to 65535: syslog+tls://host:port'],
      ['syslog+tls://127.0.0.1:0', 'must give a port from 1 to 65535: syslog+tls://host:port'],
      ['syslog+tls://127.0.0.1:65536', 'must be a valid absolute URL'],
      ['syslog+tls://127.0.0.1:6514/logs', 'must not have a path: syslog+tls://host:port'],
      ['syslog+tls://127.0.0.1:6514?tenant=1', 'must not have a query or a fragment: syslog+tls://host:port'],
      ['syslog+tls://127.0.0.1:6514#x', 'must not have a query or a fragment: syslog+tls://host:port'],
      ['syslog+tls://user:secret@127.0.0.1:6514', 'must not contain credentials'],
      ['syslog+tls://bad_host:6514', 'must name a host (a DNS name or an IP address): syslog+tls://host:port'],
      ['syslog+tls://%31%32%37.0.0.1:6514', 'must name a host (a DNS name or an IP address): syslog+tls://host:port'],
      ['syslog://127.0.0.1:514', 'must be a syslog+tls://host:port URL for the syslog format'],
      ['tls://127.0.0.1:6514', 'must be a syslog+tls://host:port URL for the syslog format'],
      [receiver.url(), 'must be a syslog+tls://host:port URL for the syslog format'],
    ];
    for (const [url, message] of refused) {
      const response = await h.call('POST', '/api/v1/webhooks', { token: t.adminToken, body: { url, format: 'syslog', events } });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toEqual({ error: expect.any(String), code: 'validation_error', details: [{ path: 'body.url', message }] });
      const update = await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body: { url } });
      expect(update.json(), url).toMatchObject({ code: 'validation_error', details: [{ path: 'body.url', message }] });
    }
    // A syslog URL does not suit an HTTP format, and the other way round, whichever of the two a PUT changes.
    const toOcsf = await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body: { format: 'ocsf' } });
    expect(toOcsf.json().details).toEqual([{ path: 'body.url', message: 'must be an https:// URL for the ocsf format' }]);
    const https = await createWebhook(h, t, { url: receiver.url(), events });
    const toSyslog = await h.call('PUT', `/api/v1/webhooks/${https.id}`, { token: t.adminToken, body: { format: 'syslog' } });
    expect(toSyslog.json().details).toEqual([{ path: 'body.url', message: 'must be a syslog+tls://host:port URL for the syslog format' }]);
    const both = await h.call('PUT', `/api/v1/webhooks/${https.id}`, {
      token: t.adminToken, body: { format: 'syslog', url: 'syslog+tls://localhost:6514' },
    });
    expect(both.json()).toMatchObject({ format: 'syslog', url: 'syslog+tls://localhost:6514' });
    expect((await storedFormats(t)).map((w) => w.format).sort()).toEqual(['syslog', 'syslog', 'syslog']);
  });

  it('lets only the tenant\'s admins change a format: 401, 403 for viewers and keys, 404 for another tenant', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url(), events: ['user.invited'] });
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:write', 'interactions:read', 'scim']);
    const other = await h.tenant('Other');
    const put = (token?: string) => h.call('PUT', `/api/v1/webhooks/${created.id}`, { token, body: { format: 'ocsf' } });
    expect((await put()).statusCode).toBe(401);
    expect((await put(viewer.token)).statusCode).toBe(403);
    expect((await put(key)).statusCode).toBe(403);
    expect((await put(other.adminToken)).json()).toMatchObject({ code: 'not_found' });
    const unknown = await h.call('PUT', '/api/v1/webhooks/whk_00000000000000000000000000000000', { token: t.adminToken, body: { format: 'ocsf' } });
    expect(unknown.statusCode).toBe(404);
    const foreignCreate = await h.call('POST', '/api/v1/webhooks', {
      token: viewer.token, body: { url: receiver.url(), format: 'ocsf', events: ['user.invited'] },
    });
    expect(foreignCreate.statusCode).toBe(403);
    expect(await storedFormats(t)).toEqual([{ url: receiver.url(), format: 'standard' }]);
  });
});
