import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, TEST_PASSWORD } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { audits, events, invite, snapshot, STRONG_PASSWORD, userRow } from '../helpers/users-fixtures.js';

describe.each(STORES)('users admin endpoints [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  describe('GET /users', () => {
    it('lists the tenant users, oldest first, with pagination headers', async () => {
      const t = await h.tenant();
      const other = await h.tenant();
      await invite(h, other);
      const viewer = await h.user(t, 'viewer');
      const pending = await invite(h, t, { role: 'admin' });
      const r = await h.call('GET', '/api/v1/users', { token: t.adminToken });
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body.total).toBe(3);
      expect(body.users.map((u: { id: string }) => u.id)).toEqual([t.adminId, viewer.id, pending.id]);
      expect(body.users[0]).toMatchObject({
        id: t.adminId, email: t.adminEmail, display_name: null, role: 'admin', status: 'active', tenant_id: t.tenantId,
      });
      expect(body.users[0].last_login).not.toBeNull();
      expect(body.users[0].created_at).toMatch(/Z$/);
      expect(body.users[2].invitation_expires_at).toBe(pending.body.invitation_expires_at);
      for (const user of body.users) expect(user).not.toHaveProperty('password_hash');
      expect(r.headers).toMatchObject({ 'x-total-count': '3', 'x-page': '1', 'x-per-page': '50', 'x-total-pages': '1' });
    });

    it('pages, filters by role and status, and sorts by created_at or email either way', async () => {
      const t = await h.tenant();
      const a = await invite(h, t, { email: `b-${Date.now()}@acme.test`, role: 'viewer' });
      const b = await invite(h, t, { email: `A-${Date.now()}@acme.test`, role: 'admin' });
      const c = await h.user(t, 'viewer'); // email starts with "viewer"
      const ids = (r: { json(): { users: Array<{ id: string }> } }) => r.json().users.map((u) => u.id);

      const page2 = await h.call('GET', '/api/v1/users', { token: t.adminToken, query: { page: 2, limit: 2 } });
      expect(ids(page2)).toEqual([b.id, c.id]);
      expect(page2.headers).toMatchObject({ 'x-total-count': '4', 'x-page': '2', 'x-per-page': '2', 'x-total-pages': '2' });
      const beyond = await h.call('GET', '/api/v1/users', { token: t.adminToken, query: { page: 9, limit: 2 } });
      expect(beyond.json()).toEqual({ users: [], total: 4, next_cursor: null });

      const admins = await h.call('GET', '/api/v1/users', { token: t.adminToken, query: { role: 'admin' } });
      expect(ids(admins)).toEqual([t.adminId, b.id]);
      expect(admins.headers['x-total-count']).toBe('2');
      const pendingViewers = await h.call('GET', '/api/v1/users', { token: t.adminToken, query: { role: 'viewer', status: 'pending' } });
      expect(ids(pendingViewers)).toEqual([a.id]);
      const inactive = await h.call('GET', '/api/v1/users', { token: t.adminToken, query: { status: 'inactive' } });
      expect(inactive.json()).toEqual({ users: [], total: 0, next_cursor: null });

      const newest = await h.call('GET', '/api/v1/users', { token: t.adminToken, query: { sort: '-created_at' } });
      expect(ids(newest)).toEqual([c.id, b.id, a.id, t.adminId]);
      // Case-insensitive: "A-…" < "admin…" < "b-…" < "viewer…"
      const byEmail = await h.call('GET', '/api/v1/users', { token: t.adminToken, query: { sort: 'email' } });
      expect(ids(byEmail)).toEqual([b.id, t.adminId, a.id, c.id]);
      const byEmailDesc = await h.call('GET', '/api/v1/users', { token: t.adminToken, query: { sort: '-email' } });
      expect(ids(byEmailDesc)).toEqual([c.id, a.id, t.adminId, b.id]);
    });

    it('refuses bad query values with 400', async () => {
      const t = await h.tenant();
      const bad: Array<[Record<string, string | number>, string]> = [
        [{ limit: 501 }, 'query.limit'], [{ limit: 0 }, 'query.limit'], [{ limit: 'ten' }, 'query.limit'],
        [{ page: 0 }, 'query.page'], [{ page: 1.5 }, 'query.page'], [{ role: 'owner' }, 'query.role'],
        [{ status: 'deleted' }, 'query.status'], [{ sort: 'name' }, 'query.sort'], [{ sort: '+email' }, 'query.sort'],
      ];
      for (const [query, path] of bad) {
        const r = await h.call('GET', '/api/v1/users', { token: t.adminToken, query });
        expect(r.statusCode, JSON.stringify(query)).toBe(400);
        expect(r.json()).toMatchObject({ code: 'validation_error', details: [{ path }] });
      }
      const max = await h.call('GET', '/api/v1/users', { token: t.adminToken, query: { limit: 500 } });
      expect(max.statusCode).toBe(200);
    });
  });

  describe('GET /users/{id}', () => {
    it('returns the full user; unknown, malformed and other-tenant ids are 404', async () => {
      const t = await h.tenant();
      const other = await h.tenant();
      const invited = await invite(h, t, { display_name: 'Lin' });
      const r = await h.call('GET', `/api/v1/users/${invited.id}`, { token: t.adminToken });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual(invited.body);
      for (const id of [other.adminId, '00000000-0000-7000-8000-000000000000', 'not-a-uuid', 'x'.repeat(100)]) {
        const missing = await h.call('GET', `/api/v1/users/${id}`, { token: t.adminToken });
        expect(missing.statusCode, id).toBe(404);
        expect(missing.json().code).toBe('not_found');
      }
    });
  });

  describe('PUT /users/{id}', () => {
    it('changes display_name and role, emits user.role_changed, audits both; the role applies at once', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      expect((await h.call('GET', '/api/v1/users', { token: viewer.token })).statusCode).toBe(403);

      const r = await h.call('PUT', `/api/v1/users/${viewer.id}`, {
        token: t.adminToken, body: { display_name: 'Promoted', role: 'admin' },
      });
      expect(r.statusCode).toBe(200);
      const user = r.json();
      expect(user).toMatchObject({ id: viewer.id, display_name: 'Promoted', role: 'admin', status: 'active', email: viewer.email });
      // Same token, new role, on the very next request.
      expect((await h.call('GET', '/api/v1/users', { token: viewer.token })).statusCode).toBe(200);

      expect(await events(h, t.tenantId)).toEqual([{ type: 'user.role_changed', data: user }]);
      // One request, one timestamp: the two entries have no order between them.
      const entries = await audits(h, t.tenantId);
      expect(entries.map((e) => e.action).sort()).toEqual(['user.role_changed', 'user.updated']);
      expect(entries.find((e) => e.action === 'user.role_changed')).toMatchObject({
        actor_id: t.adminId, target_type: 'user', target_id: viewer.id, details: { from: 'viewer', to: 'admin' },
      });
      expect(entries.find((e) => e.action === 'user.updated')).toMatchObject({
        actor_id: t.adminId, target_id: viewer.id, details: { display_name: { from: null, to: 'Promoted' } },
      });

      const back = await h.call('PUT', `/api/v1/users/${viewer.id}`, { token: t.adminToken, body: { role: 'viewer' } });
      expect(back.json().role).toBe('viewer');
      expect((await h.call('GET', '/api/v1/users', { token: viewer.token })).statusCode).toBe(403);
    });

    it('emits nothing when the role does not really change; clears display_name with null', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      const same = await h.call('PUT', `/api/v1/users/${viewer.id}`, { token: t.adminToken, body: { role: 'viewer', display_name: 'V' } });
      expect(same.statusCode).toBe(200);
      const cleared = await h.call('PUT', `/api/v1/users/${viewer.id}`, { token: t.adminToken, body: { display_name: null } });
      expect(cleared.json().display_name).toBeNull();
      const noop = await h.call('PUT', `/api/v1/users/${viewer.id}`, { token: t.adminToken, body: {} });
      expect(noop.statusCode).toBe(200);
      expect(await events(h, t.tenantId)).toEqual([]);
      expect((await audits(h, t.tenantId)).map((e) => e.action)).toEqual(['user.updated', 'user.updated']);
    });

    it('refuses a body carrying email (even unchanged) and invalid values with 400, writing nothing', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      const before = await snapshot(h, t.tenantId);
      const bad: Array<[unknown, string]> = [
        [{ email: 'new@acme.test' }, 'body.email'],
        [{ email: viewer.email, display_name: 'x' }, 'body.email'],
        [{ email: null }, 'body.email'],
        [{ role: 'owner' }, 'body.role'],
        [{ role: null }, 'body.role'],
        [{ display_name: 3 }, 'body.display_name'],
        [[1, 2], 'body'],
      ];
      for (const [body, path] of bad) {
        const r = await h.call('PUT', `/api/v1/users/${viewer.id}`, { token: t.adminToken, body });
        expect(r.statusCode, JSON.stringify(body)).toBe(400);
        expect(r.json()).toMatchObject({ code: 'validation_error' });
        if (path !== 'body') expect(r.json().details[0].path).toBe(path);
      }
      expect(await snapshot(h, t.tenantId)).toEqual(before);
    });
  });

  describe('PATCH /users/{id}/status', () => {
    it('disables (revoking tokens at once, no login) and re-enables an active user, with audit entries', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      const off = await h.call('PATCH', `/api/v1/users/${viewer.id}/status`, { token: t.adminToken, body: { status: 'inactive' } });
      expect(off.statusCode).toBe(200);
      expect(off.json()).toMatchObject({ id: viewer.id, status: 'inactive' });
      expect((await h.call('GET', '/api/v1/users/me', { token: viewer.token })).statusCode).toBe(401);
      const login = await h.call('POST', '/api/v1/auth/login', { body: { email: viewer.email, password: TEST_PASSWORD } });
      expect(login.statusCode).toBe(401);
      const sessions = await h.db.selectFrom('sessions').select('revoked_at').where('user_id', '=', viewer.id).execute();
      expect(sessions.every((s) => s.revoked_at !== null)).toBe(true);

      const on = await h.call('PATCH', `/api/v1/users/${viewer.id}/status`, { token: t.adminToken, body: { status: 'active' } });
      expect(on.json().status).toBe('active');
      // The old token stays revoked; a new login works.
      expect((await h.call('GET', '/api/v1/users/me', { token: viewer.token })).statusCode).toBe(401);
      expect(await h.login(viewer.email, TEST_PASSWORD)).toMatch(/^ugt_/);

      const entries = await audits(h, t.tenantId);
      expect(entries.map((e) => [e.action, e.details])).toEqual([
        ['user.status_changed', { email: viewer.email, from: 'active', to: 'inactive' }],
        ['user.status_changed', { email: viewer.email, from: 'inactive', to: 'active' }],
      ]);
      expect(await events(h, t.tenantId)).toEqual([]);
    });

    it('treats setting the current status again as a no-op', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      const r = await h.call('PATCH', `/api/v1/users/${viewer.id}/status`, { token: t.adminToken, body: { status: 'active' } });
      expect(r.statusCode).toBe(200);
      expect((await h.call('GET', '/api/v1/users/me', { token: viewer.token })).statusCode).toBe(200);
      expect(await audits(h, t.tenantId)).toEqual([]);
    });

    it('refuses either status on a pending user with 409 invalid_state', async () => {
      const t = await h.tenant();
      const pending = await invite(h, t);
      const before = await snapshot(h, t.tenantId);
      for (const status of ['active', 'inactive']) {
        const r = await h.call('PATCH', `/api/v1/users/${pending.id}/status`, { token: t.adminToken, body: { status } });
        expect(r.statusCode).toBe(409);
        expect(r.json().code).toBe('invalid_state');
      }
      expect(await snapshot(h, t.tenantId)).toEqual(before);
    });

    it('validates the body', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      for (const body of [{}, { status: 'pending' }, { status: 'ACTIVE' }, { status: true }]) {
        const r = await h.call('PATCH', `/api/v1/users/${viewer.id}/status`, { token: t.adminToken, body });
        expect(r.statusCode, JSON.stringify(body)).toBe(400);
        expect(r.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'body.status' }] });
      }
    });
  });

  describe('POST /users/{id}/reset-password', () => {
    it('sets the password, revokes every token of the user and audits without the password', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      const second = await h.login(viewer.email, TEST_PASSWORD);
      const r = await h.call('POST', `/api/v1/users/${viewer.id}/reset-password`, {
        token: t.adminToken, body: { new_password: STRONG_PASSWORD },
      });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ success: true, message: expect.any(String) });
      for (const token of [viewer.token, second]) {
        expect((await h.call('GET', '/api/v1/users/me', { token })).statusCode).toBe(401);
      }
      const old = await h.call('POST', '/api/v1/auth/login', { body: { email: viewer.email, password: TEST_PASSWORD } });
      expect(old.statusCode).toBe(401);
      expect(await h.login(viewer.email, STRONG_PASSWORD)).toMatch(/^ugt_/);
      const [entry] = await audits(h, t.tenantId);
      expect(entry).toMatchObject({ action: 'user.password_reset', actor_id: t.adminId, target_id: viewer.id });
      expect(JSON.stringify(entry)).not.toContain(STRONG_PASSWORD);
      expect(await events(h, t.tenantId)).toEqual([]);
    });

    it('refuses weak or missing passwords with 400 and changes nothing', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      const before = await snapshot(h, t.tenantId);
      for (const body of [{}, { new_password: 'Short1a' }, { new_password: 'lowercase-only-123' }, { new_password: 'UPPER-ONLY-123' },
        { new_password: 'No-Digits-Here-At-All' }, { new_password: 123456789012 }, { password: STRONG_PASSWORD }]) {
        const r = await h.call('POST', `/api/v1/users/${viewer.id}/reset-password`, { token: t.adminToken, body });
        expect(r.statusCode, JSON.stringify(body)).toBe(400);
        expect(r.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'body.new_password' }] });
      }
      expect(await snapshot(h, t.tenantId)).toEqual(before);
      expect((await h.call('GET', '/api/v1/users/me', { token: viewer.token })).statusCode).toBe(200);
    });
  });

  describe('DELETE /users/{id}', () => {
    it('removes the user and their sessions, logs them out at once, emits user.deleted {id}, keeps audit entries', async () => {
      const t = await h.tenant();
      const admin2 = await h.user(t, 'admin');
      // Something in the audit log done by the user who is then deleted.
      await h.call('PUT', `/api/v1/users/${t.adminId}`, { token: admin2.token, body: { display_name: 'Boss' } });
      const r = await h.call('DELETE', `/api/v1/users/${admin2.id}`, { token: t.adminToken });
      expect(r.statusCode).toBe(204);
      expect(r.body).toBe('');
      expect((await h.call('GET', '/api/v1/users/me', { token: admin2.token })).statusCode).toBe(401);
      expect(await userRow(h, t.tenantId, admin2.id)).toBeUndefined();
      expect(await h.db.selectFrom('sessions').select('id').where('user_id', '=', admin2.id).execute()).toEqual([]);
      expect((await h.call('GET', `/api/v1/users/${admin2.id}`, { token: t.adminToken })).statusCode).toBe(404);
      expect((await h.call('DELETE', `/api/v1/users/${admin2.id}`, { token: t.adminToken })).statusCode).toBe(404);

      expect(await events(h, t.tenantId)).toEqual([{ type: 'user.deleted', data: { id: admin2.id } }]);
      const entries = await audits(h, t.tenantId);
      expect(entries.map((e) => e.action)).toEqual(['user.updated', 'user.deleted']);
      expect(entries[0]).toMatchObject({ actor_id: admin2.id, actor_label: admin2.email });
      expect(entries[1]).toMatchObject({ actor_id: t.adminId, target_id: admin2.id, details: { email: admin2.email, role: 'admin' } });
    });

    it('deletes a pending user with their invitation; the link then answers 404 and the email is free again', async () => {
      const t = await h.tenant();
      const pending = await invite(h, t);
      expect((await h.call('DELETE', `/api/v1/users/${pending.id}`, { token: t.adminToken })).statusCode).toBe(204);
      expect(await h.db.selectFrom('invitations').select('id').where('tenant_id', '=', t.tenantId).execute()).toEqual([]);
      const accept = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: pending.token, password: STRONG_PASSWORD } });
      expect(accept.statusCode).toBe(404);
      await invite(h, t, { email: pending.email });
    });
  });
});
