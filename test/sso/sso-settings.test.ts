import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, TEST_PASSWORD, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { audits } from '../helpers/users-fixtures.js';
import { TEST_CLIENT_ID, TEST_CLIENT_SECRET, TestOpenIdProvider } from '../helpers/oidc-provider.js';

const BASE = 'http://127.0.0.1:8089';

/** The provider setting through the API: admin-only, the secret never returned, every change audited. */
describe.each(STORES)('single sign-on setting [%s]', (kind) => {
  let h: Harness;
  let provider: TestOpenIdProvider;
  let t: TestTenant;
  const setting = () => ({
    issuer: provider.issuer, client_id: TEST_CLIENT_ID, client_secret: TEST_CLIENT_SECRET, allowed_domains: ['acme.test'],
    role_claim: 'groups', admin_values: ['ugs-admins'], default_role: 'viewer', enforce: false,
  });

  beforeAll(async () => {
    provider = await TestOpenIdProvider.start(`${BASE}/api/v1/auth/sso/callback`);
    h = await Harness.start(kind, { env: { PUBLIC_BASE_URL: BASE } });
    t = await h.tenant();
  });
  afterAll(async () => {
    await h?.close();
    await provider?.close();
  });

  it('is set, read without its secret, changed keeping the secret, and removed; each step audited', async () => {
    expect((await h.call('GET', '/api/v1/tenant/sso', { token: t.adminToken })).statusCode).toBe(404);
    const created = await h.call('PUT', '/api/v1/tenant/sso', { token: t.adminToken, body: setting() });
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({
      issuer: provider.issuer, client_secret_set: true, redirect_uri: `${BASE}/api/v1/auth/sso/callback`, updated_by: t.adminEmail,
    });
    expect(created.body).not.toContain(TEST_CLIENT_SECRET);
    const stored = await h.db.selectFrom('tenant_sso').selectAll().where('tenant_id', '=', t.tenantId).executeTakeFirstOrThrow();
    expect(stored.client_secret_sealed).not.toContain(TEST_CLIENT_SECRET);

    const { client_secret: _kept, ...withoutSecret } = setting();
    const changed = await h.call('PUT', '/api/v1/tenant/sso', { token: t.adminToken, body: { ...withoutSecret, enforce: true } });
    expect(changed.json()).toMatchObject({ enforce: true, client_secret_set: true });
    const read = await h.call('GET', '/api/v1/tenant/sso', { token: t.adminToken });
    expect(read.json()).toMatchObject({ enforce: true, allowed_domains: ['acme.test'] });
    expect(read.body).not.toContain(TEST_CLIENT_SECRET);

    expect((await h.call('DELETE', '/api/v1/tenant/sso', { token: t.adminToken })).statusCode).toBe(204);
    expect((await h.call('DELETE', '/api/v1/tenant/sso', { token: t.adminToken })).statusCode).toBe(404);

    const entries = await audits(h, t.tenantId, 'sso.');
    expect(entries.map((entry) => entry.action)).toEqual(['sso.created', 'sso.updated', 'sso.deleted']);
    expect(entries[0]!.details).toMatchObject({ client_secret: 'changed', issuer: { from: null, to: provider.issuer } });
    expect(entries[1]!.details).toEqual({ enforce: { from: false, to: true } });
    expect(JSON.stringify(entries)).not.toContain(TEST_CLIENT_SECRET);
  });

  it('refuses a first setting without a secret, an HTTP issuer, bad domains and unknown roles, with the error body', async () => {
    const tenant = await h.tenant();
    const { client_secret: _none, ...withoutSecret } = setting();
    const cases: Array<[Record<string, unknown>, string]> = [
      [withoutSecret, 'body.client_secret'],
      [{ ...setting(), issuer: 'http://127.0.0.1:1' }, 'body.issuer'],
      [{ ...setting(), allowed_domains: [] }, 'body.allowed_domains'],
      [{ ...setting(), allowed_domains: ['not a domain'] }, 'body.allowed_domains'],
      [{ ...setting(), default_role: 'owner' }, 'body.default_role'],
      [{ ...setting(), enforce: 'yes' }, 'body.enforce'],
    ];
    for (const [body, path] of cases) {
      const answer = await h.call('PUT', '/api/v1/tenant/sso', { token: tenant.adminToken, body });
      expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      expect(answer.json().code).toBe('validation_error');
      expect(JSON.stringify(answer.json().details)).toContain(path);
    }
    expect((await h.call('GET', '/api/v1/tenant/sso', { token: tenant.adminToken })).statusCode).toBe(404);
  });

  it('is for admins of the tenant only', async () => {
    const tenant = await h.tenant();
    const viewer = await h.user(tenant, 'viewer');
    const key = await h.apiKey(tenant, ['interactions:read']);
    await h.call('PUT', '/api/v1/tenant/sso', { token: tenant.adminToken, body: setting() });
    for (const token of [viewer.token, key]) {
      expect((await h.call('GET', '/api/v1/tenant/sso', { token })).statusCode).toBe(403);
      expect((await h.call('PUT', '/api/v1/tenant/sso', { token, body: setting() })).statusCode).toBe(403);
      expect((await h.call('DELETE', '/api/v1/tenant/sso', { token })).statusCode).toBe(403);
    }
    expect((await h.call('GET', '/api/v1/tenant/sso')).statusCode).toBe(401);
    // Another tenant's admin sees only their own (none).
    const other = await h.tenant();
    expect((await h.call('GET', '/api/v1/tenant/sso', { token: other.adminToken })).statusCode).toBe(404);
  });

  it('tests the connection: the discovery document and keys of a real provider, or why it failed', async () => {
    const ok = await h.call('POST', '/api/v1/tenant/sso/test', { token: t.adminToken, body: { issuer: provider.issuer } });
    expect(ok.json(), ok.body).toMatchObject({ ok: true, issuer: provider.issuer, jwks_uri: `${provider.issuer}/jwks` });
    expect(ok.json().message).toMatch(/1 signing key/);
    const down = await h.call('POST', '/api/v1/tenant/sso/test', { token: t.adminToken, body: { issuer: 'https://127.0.0.1:1' } });
    expect(down.statusCode).toBe(200);
    expect(down.json()).toMatchObject({ ok: false, jwks_uri: null });
    expect(down.json().message).toMatch(/could not be reached/);
  });

  it('refuses a provider whose certificate no trusted CA signed', async () => {
    const stranger = await TestOpenIdProvider.start(`${BASE}/api/v1/auth/sso/callback`, { trustCa: false });
    try {
      const answer = await h.call('POST', '/api/v1/tenant/sso/test', { token: t.adminToken, body: { issuer: stranger.issuer } });
      expect(answer.json()).toMatchObject({ ok: false, jwks_uri: null });
      expect(answer.json().message).toMatch(/certificate/i);
    } finally {
      await stranger.close();
    }
  });

  it('finds the tenant of an email domain that several tenants use by the member holding the email, else asks for the tenant', async () => {
    const domain = `shared${Date.now()}.test`;
    const [first, second] = [await h.tenant(), await h.tenant()];
    for (const tenant of [first, second]) {
      const set = await h.call('PUT', '/api/v1/tenant/sso', { token: tenant.adminToken, body: { ...setting(), allowed_domains: [domain] } });
      expect(set.statusCode).toBe(200);
    }
    const nobody = await h.call('GET', '/api/v1/auth/sso/start', { query: { email: `nobody@${domain}` } });
    expect(nobody.statusCode).toBe(409);
    await h.db.updateTable('users').set({ email: `member@${domain}` }).where('id', '=', second.adminId).execute();
    const member = await h.call('GET', '/api/v1/auth/sso/start', { query: { email: `member@${domain}` } });
    expect(member.statusCode).toBe(302);
    const flows = await h.db.selectFrom('sso_flows').select('tenant_id').where('tenant_id', 'in', [first.tenantId, second.tenantId]).execute();
    expect(flows.map((flow) => flow.tenant_id)).toEqual([second.tenantId]);
  });

  it('under enforce refuses password sign-in to members (401 sso_required, audited) but lets admins in (break-glass, audited)', async () => {
    const tenant = await h.tenant();
    const viewer = await h.user(tenant, 'viewer');
    await h.call('PUT', '/api/v1/tenant/sso', { token: tenant.adminToken, body: { ...setting(), enforce: true } });
    const refused = await h.call('POST', '/api/v1/auth/login', { body: { email: viewer.email, password: TEST_PASSWORD } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'sso_required', error: expect.stringMatching(/single sign-on/) });
    // A wrong password is the usual answer: the refusal tells nothing to who does not know the password.
    const wrong = await h.call('POST', '/api/v1/auth/login', { body: { email: viewer.email, password: 'Wrong-Password-1' } });
    expect(wrong.json().code).toBe('unauthorized');
    const admin = await h.call('POST', '/api/v1/auth/login', { body: { email: tenant.adminEmail, password: TEST_PASSWORD } });
    expect(admin.statusCode).toBe(200);
    const entries = await audits(h, tenant.tenantId, 'auth.');
    expect(entries.find((entry) => entry.action === 'auth.login_refused')?.details).toEqual({ reason: 'sso_required' });
    expect(entries.filter((entry) => entry.action === 'auth.login').at(-1)?.details).toEqual({ break_glass: true });
  });

  it('answers the sign-in endpoints with clear errors: no tenant named, a path that is not one, an unknown or used code', async () => {
    expect((await h.call('GET', '/api/v1/auth/sso/start')).json().code).toBe('validation_error');
    const elsewhere = await h.call('GET', '/api/v1/auth/sso/start', { query: { email: 'a@acme.test', return_to: '//evil.test/' } });
    expect(elsewhere.statusCode).toBe(400);
    const unknownDomain = await h.call('GET', '/api/v1/auth/sso/start', { query: { email: 'a@nowhere.test' } });
    expect(unknownDomain.statusCode).toBe(404);
    const navigating = await h.call('GET', '/api/v1/auth/sso/start', {
      query: { email: 'a@nowhere.test' }, headers: { 'sec-fetch-mode': 'navigate' },
    });
    expect(navigating.statusCode).toBe(302);
    expect(navigating.headers.location).toBe(`${BASE}/sign-in?sso_error=not_configured`);
    const exchange = await h.call('POST', '/api/v1/auth/sso/exchange', { body: { code: 'ugx_unknown' } });
    expect(exchange.statusCode).toBe(401);
    expect((await h.call('POST', '/api/v1/auth/sso/exchange', { body: {} })).statusCode).toBe(400);
    const callback = await h.call('GET', '/api/v1/auth/sso/callback', { query: { state: 'forged', code: 'x' } });
    expect(callback.headers.location).toBe(`${BASE}/sign-in?sso_error=state_invalid`);
  });
});
