import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, TEST_PASSWORD } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('authentication [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { env: { LOGIN_MAX_FAILURES: '3', SESSION_TTL_SECONDS: '600' } });
  });
  afterAll(async () => h.close());

  it('logs in with the right password and returns the token, its expiry and the user', async () => {
    const t = await h.tenant();
    const response = await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: TEST_PASSWORD } });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.token).toMatch(/^ugt_/);
    expect(body.token_type).toBe('Bearer');
    expect(new Date(body.expires_at).getTime() - Date.now()).toBeGreaterThan(590_000);
    expect(body.user).toMatchObject({ email: t.adminEmail, role: 'admin', status: 'active', tenant_id: t.tenantId });
    expect(body.user.last_login).not.toBeNull();
    expect(body.user).not.toHaveProperty('password_hash');
    const tenant = await h.call('GET', '/api/v1/tenant', { token: body.token });
    expect(tenant.json()).toMatchObject({ id: t.tenantId, name: 'Acme' });
  });

  it('accepts the email in any case', async () => {
    const t = await h.tenant();
    const response = await h.call('POST', '/api/v1/auth/login', {
      body: { email: t.adminEmail.toUpperCase(), password: TEST_PASSWORD },
    });
    expect(response.statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const t = await h.tenant();
    const wrong = await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: 'Wrong-password-1' } });
    const unknown = await h.call('POST', '/api/v1/auth/login', { body: { email: 'nobody@nowhere.test', password: TEST_PASSWORD } });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json()).toEqual({ error: 'Invalid email or password', code: 'unauthorized' });
  });

  it('refuses inactive and pending users with the same 401', async () => {
    const t = await h.tenant();
    const now = h.clock.now();
    for (const status of ['inactive', 'pending'] as const) {
      const email = `${status}-${Date.now()}@acme.test`;
      const { hashPassword } = await import('../../src/kernel/passwords.js');
      await h.db.insertInto('users').values({
        tenant_id: t.tenantId, id: crypto.randomUUID(), email, display_name: null, role: 'viewer', status,
        password_hash: await hashPassword(TEST_PASSWORD), invited_by: null, invitation_expires_at: null,
        created_at: now, updated_at: now, last_login: null,
      }).execute();
      const response = await h.call('POST', '/api/v1/auth/login', { body: { email, password: TEST_PASSWORD } });
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBe('unauthorized');
    }
  });

  it('throttles an account after LOGIN_MAX_FAILURES failures, with Retry-After, even for the right password', async () => {
    const t = await h.tenant();
    for (let i = 0; i < 3; i += 1) {
      const r = await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: 'Wrong-password-1' } });
      expect(r.statusCode).toBe(401);
    }
    const throttled = await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: TEST_PASSWORD } });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.json().code).toBe('rate_limited');
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);

    h.clock.advance(15 * 60 * 1000 + 1000);
    try {
      const later = await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: TEST_PASSWORD } });
      expect(later.statusCode).toBe(200);
    } finally {
      h.clock.reset();
    }
  });

  it('throttles one client address that fails across many accounts', async () => {
    const headers = { 'x-forwarded-for': 'ignored' };
    const t = await h.tenant();
    // 3 per account x 10 = 30 failures from one address, spread over accounts that never hit their own limit.
    for (let i = 0; i < 30; i += 1) {
      await h.call('POST', '/api/v1/auth/login', {
        body: { email: `spray${i}@acme.test`, password: 'Wrong-password-1' }, headers,
      });
    }
    const blocked = await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: TEST_PASSWORD } });
    expect(blocked.statusCode).toBe(429);
    await h.db.deleteFrom('login_failures').execute();
  });

  it('records successful and failed logins in the audit log', async () => {
    const t = await h.tenant();
    await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: 'Wrong-password-1' } });
    const response = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken });
    expect(response.statusCode).toBe(200);
    const actions = response.json().entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual(['auth.login_failed', 'auth.login', 'tenant.created']);
    const login = response.json().entries[1];
    expect(login).toMatchObject({ actor_type: 'user', actor_id: t.adminId, actor_label: t.adminEmail, target_id: t.adminId });
    await h.db.deleteFrom('login_failures').execute();
  });

  it('rejects missing, malformed and unknown tokens with 401', async () => {
    for (const authorization of [undefined, 'Basic abc', 'Bearer', 'Bearer ugt_doesnotexist']) {
      const response = await h.call('GET', '/api/v1/tenant', { headers: authorization ? { authorization } : {} });
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBe('unauthorized');
    }
  });

  it('expires a token after SESSION_TTL_SECONDS', async () => {
    const t = await h.tenant();
    expect((await h.call('GET', '/api/v1/tenant', { token: t.adminToken })).statusCode).toBe(200);
    h.clock.advance(601_000);
    try {
      const expired = await h.call('GET', '/api/v1/tenant', { token: t.adminToken });
      expect(expired.statusCode).toBe(401);
    } finally {
      h.clock.reset();
    }
  });

  it('logs out: the token is revoked, other tokens of the user keep working', async () => {
    const t = await h.tenant();
    const second = await h.login(t.adminEmail, TEST_PASSWORD);
    const logout = await h.call('POST', '/api/v1/auth/logout', { token: t.adminToken });
    expect(logout.statusCode).toBe(204);
    expect(logout.body).toBe('');
    expect((await h.call('GET', '/api/v1/tenant', { token: t.adminToken })).statusCode).toBe(401);
    expect((await h.call('GET', '/api/v1/tenant', { token: second })).statusCode).toBe(200);
    expect((await h.call('POST', '/api/v1/auth/logout')).statusCode).toBe(401);
  });

  it('validates the login body', async () => {
    const response = await h.call('POST', '/api/v1/auth/login', { body: { email: 'a@b.test' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'body.password', message: 'is required' }] });
  });
});
