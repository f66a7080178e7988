import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('tenant settings [%s]', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  const put = (t: TestTenant, body: unknown, token = t.adminToken) => h.call('PUT', '/api/v1/tenant', { token, body });

  it('reads the defaults: keep everything, validate signals', async () => {
    const t = await h.tenant('Defaults');
    const viewer = await h.user(t, 'viewer');
    for (const token of [t.adminToken, viewer.token]) {
      const response = await h.call('GET', '/api/v1/tenant', { token });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        id: t.tenantId, name: 'Defaults', retention_days: null, audit_retention_days: null, validate_signals: true,
      });
    }
  });

  it('changes the given settings, keeps the others, and audits each change with its old and new value', async () => {
    const t = await h.tenant('Settings');
    const changed = await put(t, { name: '  Settings Inc.  ', retention_days: 90, validate_signals: false });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ name: 'Settings Inc.', retention_days: 90, audit_retention_days: null, validate_signals: false });

    const again = await put(t, { audit_retention_days: 400 });
    expect(again.json()).toMatchObject({ name: 'Settings Inc.', retention_days: 90, audit_retention_days: 400, validate_signals: false });
    expect((await h.call('GET', '/api/v1/tenant', { token: t.adminToken })).json()).toEqual(again.json());

    const cleared = await put(t, { retention_days: null, audit_retention_days: null });
    expect(cleared.json()).toMatchObject({ retention_days: null, audit_retention_days: null });

    const audit = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { action: 'tenant.updated' } });
    const entries = (audit.json().entries as Array<{ actor_id: string; details: Record<string, unknown> }>).reverse();
    expect(entries.map((entry) => entry.details)).toEqual([
      { name: { from: 'Settings', to: 'Settings Inc.' }, retention_days: { from: null, to: 90 }, validate_signals: { from: true, to: false } },
      { audit_retention_days: { from: null, to: 400 } },
      { retention_days: { from: 90, to: null }, audit_retention_days: { from: 400, to: null } },
    ]);
    expect(entries.every((entry) => entry.actor_id === t.adminId)).toBe(true);
  });

  it('writes no audit entry when nothing changes (same values, no field, unknown fields ignored)', async () => {
    const t = await h.tenant('Same');
    for (const body of [{ name: 'Same', validate_signals: true }, {}, { colour: 'blue' }]) {
      const response = await put(t, body);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ name: 'Same', retention_days: null, validate_signals: true });
    }
    const audit = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { action: 'tenant.updated' } });
    expect(audit.json().total).toBe(0);
  });

  it.each([
    [{ retention_days: 0 }, 'body.retention_days'],
    [{ retention_days: 1.5 }, 'body.retention_days'],
    [{ retention_days: '30' }, 'body.retention_days'],
    [{ audit_retention_days: 364 }, 'body.audit_retention_days'],
    [{ audit_retention_days: 36_501 }, 'body.audit_retention_days'],
    [{ validate_signals: 'yes' }, 'body.validate_signals'],
    [{ name: '' }, 'body.name'],
    [{ name: '   ' }, 'body.name'],
    [[], 'body'],
  ])('refuses %j with 400 validation_error and changes nothing', async (body, path) => {
    const t = await h.tenant('Strict');
    const response = await put(t, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().code).toBe('validation_error');
    expect(response.json().details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect((await h.call('GET', '/api/v1/tenant', { token: t.adminToken })).json()).toMatchObject({
      name: 'Strict', retention_days: null, audit_retention_days: null, validate_signals: true,
    });
  });

  it('is for admins: a viewer or an API key gets 403, no token 401, and nothing changes', async () => {
    const t = await h.tenant('Guarded');
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:write', 'interactions:read']);
    for (const token of [viewer.token, key]) {
      const response = await put(t, { retention_days: 1 }, token);
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json().code).toBe('forbidden');
    }
    expect((await h.call('PUT', '/api/v1/tenant', { body: { retention_days: 1 } })).statusCode).toBe(401);
    expect((await h.call('GET', '/api/v1/tenant', {})).statusCode).toBe(401);
    expect((await h.call('GET', '/api/v1/tenant', { token: t.adminToken })).json().retention_days).toBeNull();
  });

  it("changes only the caller's tenant", async () => {
    const mine = await h.tenant('Mine');
    const other = await h.tenant('Other');
    expect((await put(mine, { retention_days: 7, name: 'Mine 2' })).statusCode).toBe(200);
    expect((await h.call('GET', '/api/v1/tenant', { token: other.adminToken })).json()).toMatchObject({
      id: other.tenantId, name: 'Other', retention_days: null,
    });
  });
});
