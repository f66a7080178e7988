import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, TEST_PASSWORD } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { audits, events, snapshot, STRONG_PASSWORD } from '../helpers/users-fixtures.js';

describe.each(STORES)('users/me [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  it('GET returns the caller, for admins and viewers alike', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const admin = await h.call('GET', '/api/v1/users/me', { token: t.adminToken });
    expect(admin.statusCode).toBe(200);
    expect(admin.json()).toMatchObject({ id: t.adminId, email: t.adminEmail, role: 'admin', status: 'active', tenant_id: t.tenantId });
    expect(admin.json().last_login).not.toBeNull();
    expect(admin.json().created_at).toMatch(/Z$/);
    const me = await h.call('GET', '/api/v1/users/me', { token: viewer.token });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: viewer.id, email: viewer.email, role: 'viewer', tenant_id: t.tenantId });
  });

  it('PUT changes the display name of the caller and audits it', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const r = await h.call('PUT', '/api/v1/users/me', { token: viewer.token, body: { display_name: 'Vera' } });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ id: viewer.id, display_name: 'Vera', role: 'viewer' });
    expect((await h.call('GET', '/api/v1/users/me', { token: viewer.token })).json().display_name).toBe('Vera');
    const [entry] = await audits(h, t.tenantId);
    expect(entry).toMatchObject({
      action: 'user.profile_updated', actor_id: viewer.id, target_id: viewer.id,
      details: { display_name: { from: null, to: 'Vera' }, password_changed: false },
    });
    expect(await events(h, t.tenantId)).toEqual([]);
  });

  it('PUT with a password keeps the token in use and revokes the caller\'s other tokens', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const other = await h.login(viewer.email, TEST_PASSWORD);
    const r = await h.call('PUT', '/api/v1/users/me', { token: viewer.token, body: { password: STRONG_PASSWORD } });
    expect(r.statusCode).toBe(200);
    expect((await h.call('GET', '/api/v1/users/me', { token: viewer.token })).statusCode).toBe(200);
    expect((await h.call('GET', '/api/v1/users/me', { token: other })).statusCode).toBe(401);
    expect(await h.login(viewer.email, STRONG_PASSWORD)).toMatch(/^ugt_/);
    const [entry] = await audits(h, t.tenantId);
    expect(entry).toMatchObject({ action: 'user.profile_updated', details: { password_changed: true } });
    expect(JSON.stringify(entry)).not.toContain(STRONG_PASSWORD);
    // Another user's sessions are untouched.
    expect((await h.call('GET', '/api/v1/users/me', { token: t.adminToken })).statusCode).toBe(200);
  });

  it('PUT refuses email, role, a weak password and bad types with 400, changing nothing', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const before = await snapshot(h, t.tenantId);
    const bad: Array<[unknown, string]> = [
      [{ email: 'me@else.test' }, 'body.email'],
      [{ role: 'admin' }, 'body.role'],
      [{ role: 'viewer', display_name: 'x' }, 'body.role'],
      [{ password: 'weak' }, 'body.password'],
      [{ password: 'alllowercase1234' }, 'body.password'],
      [{ password: 12 }, 'body.password'],
      [{ display_name: ['x'] }, 'body.display_name'],
    ];
    for (const [body, path] of bad) {
      const r = await h.call('PUT', '/api/v1/users/me', { token: viewer.token, body });
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json()).toMatchObject({ code: 'validation_error', details: [{ path }] });
    }
    expect(await snapshot(h, t.tenantId)).toEqual(before);
    expect((await h.call('GET', '/api/v1/users/me', { token: viewer.token })).json().role).toBe('viewer');
  });

  it('takes precedence over /users/{user_id}: "me" is never read as an id', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    // A viewer reaching /users/{id} would get 403; /users/me answers 200.
    expect((await h.call('GET', '/api/v1/users/me', { token: viewer.token })).statusCode).toBe(200);
    expect((await h.call('GET', `/api/v1/users/${viewer.id}`, { token: viewer.token })).statusCode).toBe(403);
    // Paths that only exist with an id treat "me" as an unknown id.
    expect((await h.call('DELETE', '/api/v1/users/me', { token: t.adminToken })).statusCode).toBe(404);
    const status = await h.call('PATCH', '/api/v1/users/me/status', { token: t.adminToken, body: { status: 'inactive' } });
    expect(status.statusCode).toBe(404);
  });

  it('answers 401 without a token and 403 to API keys', async () => {
    const t = await h.tenant();
    const key = await h.apiKey(t, ['interactions:read', 'interactions:write']);
    for (const method of ['GET', 'PUT']) {
      const body = method === 'PUT' ? { display_name: 'x' } : undefined;
      expect((await h.call(method, '/api/v1/users/me', { body })).statusCode).toBe(401);
      const r = await h.call(method, '/api/v1/users/me', { token: key, body });
      expect(r.statusCode).toBe(403);
      expect(r.json().code).toBe('forbidden');
    }
  });
});
