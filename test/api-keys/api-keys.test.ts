import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('API keys [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  it('creates a key shown once, lists it without the secret, and stores only its hash', async () => {
    const t = await h.tenant();
    const created = await h.call('POST', '/api/v1/api-keys', {
      token: t.adminToken, body: { name: 'Browser extension', scopes: ['interactions:write'] },
    });
    expect(created.statusCode).toBe(201);
    const key = created.json();
    expect(key).toMatchObject({
      id: expect.stringMatching(/^key_/), name: 'Browser extension', scopes: ['interactions:write'],
      created_by: t.adminId, last_used_at: null, key: expect.stringMatching(/^ugk_/),
    });
    expect(key.key.startsWith(key.key_prefix)).toBe(true);

    const list = await h.call('GET', '/api/v1/api-keys', { token: t.adminToken });
    expect(list.statusCode).toBe(200);
    expect(list.json().total).toBe(1);
    expect(list.json().api_keys[0]).toMatchObject({ id: key.id, name: 'Browser extension' });
    expect(list.body).not.toContain(key.key);
    expect(list.headers['x-total-count']).toBe('1');

    const stored = await h.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(key.key);
  });

  it('authenticates with the key, within its scopes only', async () => {
    const t = await h.tenant();
    const writeKey = await h.apiKey(t, ['interactions:write']);
    // Admin-only and user-only routes are closed to keys whatever their scopes.
    for (const [method, url] of [['GET', '/api/v1/api-keys'], ['GET', '/api/v1/audit-log'], ['GET', '/api/v1/tenant'], ['POST', '/api/v1/auth/logout']]) {
      const response = await h.call(method!, url!, { token: writeKey });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('forbidden');
    }
  });

  it('records when a key was last used, to the minute', async () => {
    const t = await h.tenant();
    const created = (await h.call('POST', '/api/v1/api-keys', {
      token: t.adminToken, body: { name: 'extension', scopes: ['interactions:read'] },
    })).json();
    const lastUsed = async () => (await h.call('GET', '/api/v1/api-keys', { token: t.adminToken })).json().api_keys[0].last_used_at;
    expect(await lastUsed()).toBeNull();
    await h.call('GET', '/api/v1/interactions', { token: created.key });
    const first = await lastUsed();
    expect(Date.now() - new Date(first).getTime()).toBeLessThan(10_000);
    await h.call('GET', '/api/v1/interactions', { token: created.key });
    expect(await lastUsed()).toBe(first); // within the minute: no write
    h.clock.advance(61_000);
    try {
      await h.call('GET', '/api/v1/interactions', { token: created.key });
      expect(new Date(await lastUsed()).getTime()).toBeGreaterThan(new Date(first).getTime() + 60_000);
    } finally {
      h.clock.reset();
    }
  });

  it('revokes a key: it stops working at once, and a second revoke is 404', async () => {
    const t = await h.tenant();
    const created = (await h.call('POST', '/api/v1/api-keys', {
      token: t.adminToken, body: { name: 'proxy', scopes: ['interactions:read'] },
    })).json();
    const before = await h.call('GET', '/api/v1/tenant', { token: created.key });
    expect(before.statusCode).toBe(403); // known key, route outside its scopes
    const revoke = await h.call('DELETE', `/api/v1/api-keys/${created.id}`, { token: t.adminToken });
    expect(revoke.statusCode).toBe(204);
    const after = await h.call('GET', '/api/v1/tenant', { token: created.key });
    expect(after.statusCode).toBe(401);
    expect((await h.call('DELETE', `/api/v1/api-keys/${created.id}`, { token: t.adminToken })).statusCode).toBe(404);
    expect((await h.call('GET', '/api/v1/api-keys', { token: t.adminToken })).json().total).toBe(0);
  });

  it('audits creation and revocation', async () => {
    const t = await h.tenant();
    const created = (await h.call('POST', '/api/v1/api-keys', {
      token: t.adminToken, body: { name: 'agent', scopes: ['interactions:read', 'interactions:write'] },
    })).json();
    await h.call('DELETE', `/api/v1/api-keys/${created.id}`, { token: t.adminToken });
    const audit = (await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { action: 'api_key.created' } })).json();
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({ actor_id: t.adminId, target_id: created.id, details: { name: 'agent' } });
    expect(JSON.stringify(audit)).not.toContain(created.key);
    const revoked = (await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { action: 'api_key.revoked' } })).json();
    expect(revoked.entries[0].target_id).toBe(created.id);
  });

  it('validates the body: name, known scopes, at least one', async () => {
    const t = await h.tenant();
    for (const body of [{ scopes: ['interactions:read'] }, { name: 'x', scopes: [] }, { name: 'x', scopes: ['admin'] }, { name: 'x', scopes: 'interactions:read' }]) {
      const response = await h.call('POST', '/api/v1/api-keys', { token: t.adminToken, body });
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('validation_error');
    }
  });

  it('is for admins only: no token 401, viewer 403, another tenant 404', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    expect((await h.call('GET', '/api/v1/api-keys')).statusCode).toBe(401);
    expect((await h.call('POST', '/api/v1/api-keys', { body: { name: 'x', scopes: ['interactions:read'] } })).statusCode).toBe(401);
    expect((await h.call('GET', '/api/v1/api-keys', { token: viewer.token })).statusCode).toBe(403);
    const denied = await h.call('POST', '/api/v1/api-keys', { token: viewer.token, body: { name: 'x', scopes: ['interactions:read'] } });
    expect(denied.statusCode).toBe(403);
    const other = await h.tenant('Other');
    const foreign = (await h.call('POST', '/api/v1/api-keys', { token: other.adminToken, body: { name: 'x', scopes: ['interactions:read'] } })).json();
    expect((await h.call('DELETE', `/api/v1/api-keys/${foreign.id}`, { token: t.adminToken })).statusCode).toBe(404);
    expect((await h.call('DELETE', `/api/v1/api-keys/${foreign.id}`, { token: viewer.token })).statusCode).toBe(403);
    expect((await h.call('DELETE', '/api/v1/api-keys/not-an-id', { token: t.adminToken })).statusCode).toBe(404);
  });

  it('paginates the list with the four headers', async () => {
    const t = await h.tenant();
    for (let i = 0; i < 3; i += 1) await h.apiKey(t, ['interactions:read']);
    const page = await h.call('GET', '/api/v1/api-keys', { token: t.adminToken, query: { page: 2, limit: 2 } });
    expect(page.json().api_keys).toHaveLength(1);
    expect(page.json().total).toBe(3);
    expect(page.headers).toMatchObject({ 'x-total-count': '3', 'x-page': '2', 'x-per-page': '2', 'x-total-pages': '2' });
  });
});
