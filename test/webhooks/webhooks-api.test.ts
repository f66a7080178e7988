import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/platform/outbox/event-types.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { openWebhookSecrets } from '../../src/modules/delivery/secrets.js';
import { createWebhook, deliveryEnv } from '../helpers/webhooks-fixtures.js';

describe.each(STORES)('webhooks API [%s]', (kind) => {
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
  const webhookRows = (t: TestTenant) => h.db.selectFrom('webhooks').selectAll().where('tenant_id', '=', t.tenantId).execute();
  /** The tenant's only webhook as stored, its secrets decrypted with the tenant's keys. */
  const openedRow = async (t: TestTenant) => {
    const [row] = await webhookRows(t);
    return openWebhookSecrets(await h.deps.keyring.forTenant(t.tenantId), row!);
  };

  it('creates a webhook: 201 with the signing secret once, stored, audited', async () => {
    const t = await h.tenant();
    const response = await h.call('POST', '/api/v1/webhooks', {
      token: t.adminToken,
      body: {
        url: receiver.url(), events: ['user.invited', 'policy.created'], description: 'SIEM',
        headers: { 'X-Team': 'secops' }, auth_token: 'receiver-token-123',
      },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      url: receiver.url(), events: ['user.invited', 'policy.created'], active: true, description: 'SIEM',
      headers: { 'X-Team': 'secops' }, has_auth_token: true, last_delivery: null, delivery_count: 0,
    });
    expect(body.id).toMatch(/^whk_[0-9a-f]{32}$/);
    expect(body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(body.signing_secret.slice(6), 'base64')).toHaveLength(32);
    expect(new Date(body.created_at).toISOString()).toBe(body.created_at);
    expect(body).not.toHaveProperty('auth_token');

    const [row] = await webhookRows(t);
    expect(JSON.stringify(row)).not.toContain(body.signing_secret);
    expect(JSON.stringify(row)).not.toContain('receiver-token-123');
    expect(JSON.stringify(row)).not.toContain('secops');
    expect(row).toMatchObject({ secrets_sealed: true, headers: { 'X-Team': expect.stringMatching(/^v1\./) } });
    expect(await openedRow(t)).toMatchObject({
      id: body.id, signing_secret: body.signing_secret, auth_token: 'receiver-token-123', headers: { 'X-Team': 'secops' },
      created_by: t.adminId,
    });
    const [audit] = await auditOf(t, 'webhook.created');
    expect(audit).toMatchObject({ actor_id: t.adminId, target_type: 'webhook', target_id: body.id });
    expect(audit!.details).toMatchObject({ url: receiver.url(), events: ['user.invited', 'policy.created'], header_names: ['X-Team'], has_auth_token: true });
    expect(JSON.stringify(audit)).not.toContain(body.signing_secret);
    expect(JSON.stringify(audit)).not.toContain('receiver-token-123');
  });

  it('applies the defaults and keeps each event type once', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url(), events: ['user.deleted', 'user.deleted', 'alert.created'] });
    expect(created).toMatchObject({ active: true, description: '', headers: {}, has_auth_token: false, events: ['user.deleted', 'alert.created'] });
    const inactive = await createWebhook(h, t, { url: receiver.url(), events: EVENT_TYPES, active: false });
    expect(inactive.active).toBe(false);
    expect(inactive.events).toEqual([...EVENT_TYPES]);
  });

  it('refuses invalid input with 400 validation_error and stores nothing', async () => {
    const t = await h.tenant();
    const valid = { url: receiver.url(), events: ['user.invited'] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...valid, url: 'http://127.0.0.1/hook' }, 'body.url'],
      [{ ...valid, url: 'ftp://127.0.0.1/hook' }, 'body.url'],
      [{ ...valid, url: 'not a url' }, 'body.url'],
      [{ ...valid, url: 'https://user:pass@127.0.0.1/hook' }, 'body.url'],
      [{ ...valid, url: '' }, 'body.url'],
      [{ events: ['user.invited'] }, 'body.url'],
      [{ ...valid, events: ['user.exploded'] }, 'body.events.0'],
      [{ ...valid, events: [] }, 'body.events'],
      [{ ...valid, events: 'user.invited' }, 'body.events'],
      [{ url: receiver.url() }, 'body.events'],
      [{ ...valid, active: 'yes' }, 'body.active'],
      [{ ...valid, description: 'x'.repeat(1001) }, 'body.description'],
      [{ ...valid, headers: { 'X-Number': 5 } }, 'body.headers.X-Number'],
      [{ ...valid, headers: { 'Bad Header': 'x' } }, 'body.headers.Bad Header'],
      [{ ...valid, headers: { 'X-Split': 'a\r\nInjected: b' } }, 'body.headers.X-Split'],
      [{ ...valid, headers: { 'X-A': '1', 'x-a': '2' } }, 'body.headers.x-a'],
      [{ ...valid, auth_token: 'two words' }, 'body.auth_token'],
      [{ ...valid, auth_token: 42 }, 'body.auth_token'],
    ];
    for (const [body, path] of cases) {
      const response = await h.call('POST', '/api/v1/webhooks', { token: t.adminToken, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('validation_error');
      expect(response.json().details[0].path, JSON.stringify(body)).toBe(path);
    }
    expect(await webhookRows(t)).toHaveLength(0);
    expect(await auditOf(t, 'webhook.created')).toHaveLength(0);
  });

  it('refuses custom headers that would replace the service\'s own, in any case', async () => {
    const t = await h.tenant();
    const reserved = [
      'Content-Type', 'content-type', 'AUTHORIZATION', 'Host', 'Content-Length', 'X-Service-Signature',
      'x-service-event', 'X-Service-Event-Id', 'X-Service-Delivery', 'webhook-id', 'Webhook-Timestamp',
      'WEBHOOK-SIGNATURE', 'Transfer-Encoding', 'Connection',
    ];
    const hook = await createWebhook(h, t, { url: receiver.url(), events: ['user.invited'] });
    for (const name of reserved) {
      const create = await h.call('POST', '/api/v1/webhooks', {
        token: t.adminToken, body: { url: receiver.url(), events: ['user.invited'], headers: { [name]: 'x' } },
      });
      expect(create.statusCode, name).toBe(400);
      expect(create.json()).toMatchObject({ code: 'validation_error', details: [{ path: `body.headers.${name}` }] });
      const update = await h.call('PUT', `/api/v1/webhooks/${hook.id}`, { token: t.adminToken, body: { headers: { [name]: 'x' } } });
      expect(update.statusCode, name).toBe(400);
      expect(update.json().code).toBe('validation_error');
    }
    expect(await webhookRows(t)).toHaveLength(1);
    expect((await webhookRows(t))[0]!.headers).toEqual({});
  });

  it('lists newest first with the active filter, pages and pagination headers', async () => {
    const t = await h.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push((await createWebhook(h, t, { url: receiver.url(`/h${i}`), events: ['user.invited'], active: i % 2 === 0 })).id);
    }
    const all = await h.call('GET', '/api/v1/webhooks', { token: t.adminToken });
    expect(all.statusCode).toBe(200);
    expect(all.json().total).toBe(5);
    expect(all.json().webhooks.map((w: { id: string }) => w.id)).toEqual([...ids].reverse());
    expect(all.json().webhooks[0]).toMatchObject({ last_delivery: null, delivery_count: 0, has_auth_token: false });
    expect(all.json().webhooks[0]).not.toHaveProperty('signing_secret');
    expect(all.headers['x-total-count']).toBe('5');

    const active = await h.call('GET', '/api/v1/webhooks', { token: t.adminToken, query: { active: true } });
    expect(active.json().webhooks.map((w: { id: string }) => w.id)).toEqual([ids[4], ids[2], ids[0]]);
    expect(active.json().total).toBe(3);
    const inactive = await h.call('GET', '/api/v1/webhooks', { token: t.adminToken, query: { active: false } });
    expect(inactive.json().webhooks.map((w: { id: string }) => w.id)).toEqual([ids[3], ids[1]]);

    const page = await h.call('GET', '/api/v1/webhooks', { token: t.adminToken, query: { page: 2, limit: 2 } });
    expect(page.json().webhooks.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    expect(page.json().total).toBe(5);
    expect(page.headers).toMatchObject({ 'x-page': '2', 'x-per-page': '2', 'x-total-pages': '3', 'x-total-count': '5' });

    const badQueries: Array<Record<string, string | number>> = [{ limit: 501 }, { limit: 0 }, { page: 0 }, { active: 'maybe' }];
    for (const query of badQueries) {
      const bad = await h.call('GET', '/api/v1/webhooks', { token: t.adminToken, query });
      expect(bad.statusCode, JSON.stringify(query)).toBe(400);
      expect(bad.json().code).toBe('validation_error');
    }
  });

  it('reads a webhook with headers and has_auth_token, never its secrets', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, {
      url: receiver.url(), events: ['user.invited'], headers: { 'X-Team': 'secops' }, auth_token: 'tok-123456',
    });
    const response = await h.call('GET', `/api/v1/webhooks/${created.id}`, { token: t.adminToken });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: created.id, url: receiver.url(), format: 'standard', events: ['user.invited'], active: true, description: '',
      headers: { 'X-Team': 'secops' }, has_auth_token: true, created_at: created.created_at,
      updated_at: created.created_at, last_delivery: null, delivery_count: 0, queued: 0, oldest_queued_at: null,
    });
    expect(response.body).not.toContain(created.signing_secret);
    expect(response.body).not.toContain('tok-123456');
  });

  it('updates url, events, active, description, headers and auth_token; audits without secrets', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url(), events: ['user.invited'], auth_token: 'old-token' });
    const response = await h.call('PUT', `/api/v1/webhooks/${created.id}`, {
      token: t.adminToken,
      body: {
        url: receiver.url('/v2'), events: ['policy.updated'], active: false, description: 'moved',
        headers: { 'X-Env': 'prod' }, auth_token: 'new-token',
      },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: created.id, url: receiver.url('/v2'), events: ['policy.updated'], active: false, description: 'moved',
      headers: { 'X-Env': 'prod' }, has_auth_token: true,
    });
    expect(response.json()).not.toHaveProperty('auth_token');
    const [row] = await webhookRows(t);
    expect(JSON.stringify(row)).not.toContain('new-token');
    expect(await openedRow(t)).toMatchObject({ auth_token: 'new-token', active: false, signing_secret: created.signing_secret });
    const [audit] = await auditOf(t, 'webhook.updated');
    expect(audit!.details).toMatchObject({
      changed: ['url', 'events', 'active', 'description', 'headers', 'auth_token'],
      url: receiver.url('/v2'), active: false, header_names: ['X-Env'], has_auth_token: true,
    });
    expect(JSON.stringify(audit)).not.toContain('new-token');

    const cleared = await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body: { auth_token: '', headers: {} } });
    expect(cleared.json()).toMatchObject({ has_auth_token: false, headers: {}, url: receiver.url('/v2') });
  });

  it('refuses invalid updates with 400 and changes nothing', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url(), events: ['user.invited'] });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: 'http://127.0.0.1/x' }, 'body.url'],
      [{ events: [] }, 'body.events'],
      [{ events: ['nope'] }, 'body.events.0'],
      [{ active: 1 }, 'body.active'],
      [{ headers: { Authorization: 'Basic x' } }, 'body.headers.Authorization'],
    ];
    for (const [body, path] of cases) {
      const response = await h.call('PUT', `/api/v1/webhooks/${created.id}`, { token: t.adminToken, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_error', details: [{ path }] });
    }
    const [row] = await webhookRows(t);
    expect(row).toMatchObject({ url: receiver.url(), events: ['user.invited'], active: true });
    expect(await auditOf(t, 'webhook.updated')).toHaveLength(0);
  });

  it('deletes a webhook with its queue and history: 204, then 404', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url(), events: ['user.invited'] });
    const tested = await h.call('POST', `/api/v1/webhooks/${created.id}/test`, { token: t.adminToken, body: { event_type: 'user.invited' } });
    expect(tested.statusCode).toBe(200);
    const response = await h.call('DELETE', `/api/v1/webhooks/${created.id}`, { token: t.adminToken });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await h.call('GET', `/api/v1/webhooks/${created.id}`, { token: t.adminToken })).statusCode).toBe(404);
    expect((await h.call('DELETE', `/api/v1/webhooks/${created.id}`, { token: t.adminToken })).statusCode).toBe(404);
    expect(await webhookRows(t)).toHaveLength(0);
    expect(await h.db.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', t.tenantId).execute()).toHaveLength(0);
    expect(await auditOf(t, 'webhook.deleted')).toMatchObject([{ target_id: created.id, details: { url: receiver.url() } }]);
  });

  it('rotates the signing secret: the new one is returned once, the old one is kept for 24 hours', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url(), events: ['user.invited'] });
    const before = Date.now();
    const response = await h.call('POST', `/api/v1/webhooks/${created.id}/rotate-secret`, { token: t.adminToken });
    expect(response.statusCode).toBe(200);
    const rotated = response.json();
    expect(rotated.id).toBe(created.id);
    expect(rotated.signing_secret).toMatch(/^whsec_/);
    expect(rotated.signing_secret).not.toBe(created.signing_secret);
    const graceMs = new Date(rotated.previous_secret_expires_at).getTime() - before;
    expect(graceMs).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 1000);
    expect(graceMs).toBeLessThanOrEqual(24 * 3600 * 1000 + 5000);
    const [row] = await webhookRows(t);
    expect(JSON.stringify(row)).not.toContain(created.signing_secret);
    expect(await openedRow(t)).toMatchObject({ signing_secret: rotated.signing_secret, previous_signing_secret: created.signing_secret });
    const read = await h.call('GET', `/api/v1/webhooks/${created.id}`, { token: t.adminToken });
    expect(read.body).not.toContain(rotated.signing_secret);
    const [audit] = await auditOf(t, 'webhook.secret_rotated');
    expect(audit).toMatchObject({ target_id: created.id, actor_id: t.adminId });
    expect(JSON.stringify(audit)).not.toContain('whsec_');
  });

  it('tests a webhook synchronously and records it in the history, with a 400 for an unknown type', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url('/api-test'), events: ['user.invited'] });
    const response = await h.call('POST', `/api/v1/webhooks/${created.id}/test`, {
      token: t.adminToken, body: { event_type: 'interaction.high_risk' },
    });
    expect(response.statusCode).toBe(200);
    const result = response.json();
    expect(result).toMatchObject({ delivered: true, status_code: 200 });
    expect(result.response_time_ms).toBeGreaterThanOrEqual(0);
    expect(result).not.toHaveProperty('error');
    const history = await h.call('GET', `/api/v1/webhooks/${created.id}/deliveries`, { token: t.adminToken });
    expect(history.json()).toEqual({
      deliveries: [{
        id: result.delivery_id, timestamp: result.timestamp, event_type: 'interaction.high_risk', event_id: expect.stringMatching(/^evt_/),
        attempt: 1, test: true, format: 'standard', status_code: 200, response_time_ms: result.response_time_ms, success: true,
      }],
      total: 1,
      next_cursor: null,
    });
    for (const body of [{ event_type: 'user.exploded' }, {}, { event_type: 7 }]) {
      const bad = await h.call('POST', `/api/v1/webhooks/${created.id}/test`, { token: t.adminToken, body });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().code).toBe('validation_error');
    }
  });

  it('pages the delivery history newest first and refuses a limit above 500', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url(), events: ['user.invited'] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const r = await h.call('POST', `/api/v1/webhooks/${created.id}/test`, { token: t.adminToken, body: { event_type: 'user.invited' } });
      ids.push(r.json().delivery_id);
    }
    const page = await h.call('GET', `/api/v1/webhooks/${created.id}/deliveries`, { token: t.adminToken, query: { limit: 2 } });
    expect(page.json().deliveries.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(page.json().total).toBe(3);
    expect(page.headers['x-total-count']).toBe('3');
    const second = await h.call('GET', `/api/v1/webhooks/${created.id}/deliveries`, { token: t.adminToken, query: { limit: 2, page: 2 } });
    expect(second.json().deliveries.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    const listed = await h.call('GET', '/api/v1/webhooks', { token: t.adminToken });
    expect(listed.json().webhooks[0]).toMatchObject({ delivery_count: 3, last_delivery: page.json().deliveries[0].timestamp });
    const bad = await h.call('GET', `/api/v1/webhooks/${created.id}/deliveries`, { token: t.adminToken, query: { limit: 501 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('validation_error');
  });

  it('refuses to redeliver a test delivery (409) or an unknown one (404)', async () => {
    const t = await h.tenant();
    const created = await createWebhook(h, t, { url: receiver.url(), events: ['user.invited'] });
    const tested = await h.call('POST', `/api/v1/webhooks/${created.id}/test`, { token: t.adminToken, body: { event_type: 'user.invited' } });
    const test = await h.call('POST', `/api/v1/webhooks/${created.id}/deliveries/${tested.json().delivery_id}/redeliver`, { token: t.adminToken });
    expect(test.statusCode).toBe(409);
    expect(test.json().code).toBe('invalid_state');
    const unknown = await h.call('POST', `/api/v1/webhooks/${created.id}/deliveries/dlv_nope/redeliver`, { token: t.adminToken });
    expect(unknown.statusCode).toBe(404);
    expect(await h.db.selectFrom('webhook_jobs').selectAll().where('tenant_id', '=', t.tenantId).execute()).toHaveLength(0);
  });

  describe('access', () => {
    let owner: TestTenant;
    let webhookId: string;
    let deliveryId: string;
    beforeAll(async () => {
      owner = await h.tenant();
      webhookId = (await createWebhook(h, owner, { url: receiver.url(), events: ['user.invited'] })).id;
      const tested = await h.call('POST', `/api/v1/webhooks/${webhookId}/test`, { token: owner.adminToken, body: { event_type: 'user.invited' } });
      deliveryId = tested.json().delivery_id;
    });

    const routes = () => [
      { method: 'POST', url: '/api/v1/webhooks', body: { url: receiver.url(), events: ['user.invited'] } },
      { method: 'GET', url: '/api/v1/webhooks' },
      { method: 'GET', url: `/api/v1/webhooks/${webhookId}` },
      { method: 'PUT', url: `/api/v1/webhooks/${webhookId}`, body: { description: 'changed' } },
      { method: 'DELETE', url: `/api/v1/webhooks/${webhookId}` },
      { method: 'POST', url: `/api/v1/webhooks/${webhookId}/test`, body: { event_type: 'user.invited' } },
      { method: 'GET', url: `/api/v1/webhooks/${webhookId}/deliveries` },
      { method: 'POST', url: `/api/v1/webhooks/${webhookId}/rotate-secret` },
      { method: 'POST', url: `/api/v1/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver` },
    ];

    it('answers 401 without a token on every route', async () => {
      for (const route of routes()) {
        const response = await h.call(route.method, route.url, { body: route.body });
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
        expect(response.json().code).toBe('unauthorized');
      }
    });

    it('answers 403 to viewers and to API keys of any scope on every route, and changes nothing', async () => {
      const viewer = await h.user(owner, 'viewer');
      const key = await h.apiKey(owner, ['interactions:write', 'interactions:read']);
      const before = await webhookRows(owner);
      const requestsBefore = receiver.requests.length;
      for (const token of [viewer.token, key]) {
        for (const route of routes()) {
          const response = await h.call(route.method, route.url, { token, body: route.body });
          expect(response.statusCode, `${route.method} ${route.url}`).toBe(403);
          expect(response.json().code).toBe('forbidden');
        }
      }
      expect(await webhookRows(owner)).toEqual(before);
      expect(receiver.requests.length).toBe(requestsBefore);
      const audits = await h.db.selectFrom('audit_log').select('action').where('tenant_id', '=', owner.tenantId)
        .where('action', 'like', 'webhook.%').execute();
      expect(audits.map((a) => a.action)).toEqual(['webhook.created']);
    });

    it('answers 404 for another tenant\'s ids and for unknown or malformed ids', async () => {
      const other = await h.tenant('Other');
      const before = await webhookRows(owner);
      for (const route of routes().filter((r) => r.url.includes(webhookId))) {
        const response = await h.call(route.method, route.url, { token: other.adminToken, body: route.body });
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(404);
        expect(response.json().code).toBe('not_found');
      }
      for (const id of ['whk_00000000000000000000000000000000', 'not-an-id', "x'; drop table webhooks; --"]) {
        const response = await h.call('GET', `/api/v1/webhooks/${encodeURIComponent(id)}`, { token: owner.adminToken });
        expect(response.statusCode, id).toBe(404);
      }
      const foreignDelivery = await h.call('POST', `/api/v1/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, { token: other.adminToken });
      expect(foreignDelivery.statusCode).toBe(404);
      expect(await webhookRows(owner)).toEqual(before);
      const list = await h.call('GET', '/api/v1/webhooks', { token: other.adminToken });
      expect(list.json()).toEqual({ webhooks: [], total: 0, next_cursor: null });
    });
  });
});
