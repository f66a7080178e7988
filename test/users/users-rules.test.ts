import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { events, invite, snapshot, STRONG_PASSWORD } from '../helpers/users-fixtures.js';

interface Endpoint {
  method: string;
  path: (id: string) => string;
  body?: unknown;
}

/** Every admin-only users endpoint, with a valid body. */
const ADMIN_ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: () => '/api/v1/users/invite', body: { email: 'someone@acme.test', role: 'viewer' } },
  { method: 'GET', path: () => '/api/v1/users' },
  { method: 'GET', path: (id) => `/api/v1/users/${id}` },
  { method: 'PUT', path: (id) => `/api/v1/users/${id}`, body: { display_name: 'X' } },
  { method: 'PATCH', path: (id) => `/api/v1/users/${id}/status`, body: { status: 'inactive' } },
  { method: 'POST', path: (id) => `/api/v1/users/${id}/reset-password`, body: { new_password: STRONG_PASSWORD } },
  { method: 'POST', path: (id) => `/api/v1/users/${id}/resend-invitation` },
  { method: 'DELETE', path: (id) => `/api/v1/users/${id}` },
];
const WITH_ID = ADMIN_ENDPOINTS.filter((e) => e.path('ID').includes('ID'));

async function activeAdmins(h: Harness, t: TestTenant) {
  const rows = await h.db.selectFrom('users').select('id')
    .where('tenant_id', '=', t.tenantId).where('role', '=', 'admin').where('status', '=', 'active').execute();
  return rows.length;
}

describe.each(STORES)('users rules [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  it('answers 401 without a token, 403 to viewers and API keys, on every admin endpoint, writing nothing', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const target = await invite(h, t);
    const key = await h.apiKey(t, ['interactions:read', 'interactions:write']);
    const before = await snapshot(h, t.tenantId);
    for (const e of ADMIN_ENDPOINTS) {
      const label = `${e.method} ${e.path(':id')}`;
      const anonymous = await h.call(e.method, e.path(target.id), { body: e.body });
      expect(anonymous.statusCode, label).toBe(401);
      expect(anonymous.json().code).toBe('unauthorized');
      for (const token of [viewer.token, key]) {
        const r = await h.call(e.method, e.path(target.id), { token, body: e.body });
        expect(r.statusCode, label).toBe(403);
        expect(r.json().code).toBe('forbidden');
      }
    }
    expect(await snapshot(h, t.tenantId)).toEqual(before);
  });

  it('answers 404 to an id of another tenant on every endpoint with an id, touching nothing there', async () => {
    const t = await h.tenant();
    const other = await h.tenant();
    const victim = await invite(h, other);
    const before = await snapshot(h, other.tenantId);
    for (const e of WITH_ID) {
      for (const id of [victim.id, other.adminId]) {
        const r = await h.call(e.method, e.path(id), { token: t.adminToken, body: e.body });
        expect(r.statusCode, `${e.method} ${e.path(':id')}`).toBe(404);
        expect(r.json().code).toBe('not_found');
      }
    }
    expect(await snapshot(h, other.tenantId)).toEqual(before);
    expect((await h.call('GET', '/api/v1/users/me', { token: other.adminToken })).statusCode).toBe(200);
  });

  it('answers 404 to malformed and unknown ids on every endpoint with an id', async () => {
    const t = await h.tenant();
    for (const e of WITH_ID) {
      for (const id of ['123', 'not-a-uuid', '00000000-0000-0000-0000-000000000000', encodeURIComponent("1' or '1'='1")]) {
        const r = await h.call(e.method, e.path(id), { token: t.adminToken, body: e.body });
        expect(r.statusCode, `${e.method} ${e.path(id)}`).toBe(404);
      }
    }
  });

  it('forbids deleting, disabling and demoting yourself with 403 self_action_forbidden', async () => {
    const t = await h.tenant();
    await h.user(t, 'admin'); // not the last admin: the refusal is about self, not about count
    const before = await snapshot(h, t.tenantId);
    const attempts: Endpoint[] = [
      { method: 'DELETE', path: (id) => `/api/v1/users/${id}` },
      { method: 'PATCH', path: (id) => `/api/v1/users/${id}/status`, body: { status: 'inactive' } },
      { method: 'PUT', path: (id) => `/api/v1/users/${id}`, body: { role: 'viewer' } },
      { method: 'PUT', path: (id) => `/api/v1/users/${id}`, body: { role: 'viewer', display_name: 'Me' } },
    ];
    for (const e of attempts) {
      const r = await h.call(e.method, e.path(t.adminId), { token: t.adminToken, body: e.body });
      expect(r.statusCode, `${e.method} ${JSON.stringify(e.body)}`).toBe(403);
      expect(r.json().code).toBe('self_action_forbidden');
    }
    expect(await snapshot(h, t.tenantId)).toEqual(before);
    // What is not a self-removal stays allowed on yourself.
    const rename = await h.call('PUT', `/api/v1/users/${t.adminId}`, { token: t.adminToken, body: { display_name: 'Me', role: 'admin' } });
    expect(rename.statusCode).toBe(200);
    const stillActive = await h.call('PATCH', `/api/v1/users/${t.adminId}/status`, { token: t.adminToken, body: { status: 'active' } });
    expect(stillActive.statusCode).toBe(200);
  });

  it('lets an admin demote, disable and delete other admins', async () => {
    const t = await h.tenant();
    const [a, b, c] = [await h.user(t, 'admin'), await h.user(t, 'admin'), await h.user(t, 'admin')];
    expect((await h.call('PUT', `/api/v1/users/${a.id}`, { token: t.adminToken, body: { role: 'viewer' } })).statusCode).toBe(200);
    expect((await h.call('PATCH', `/api/v1/users/${b.id}/status`, { token: t.adminToken, body: { status: 'inactive' } })).statusCode).toBe(200);
    expect((await h.call('DELETE', `/api/v1/users/${c.id}`, { token: t.adminToken })).statusCode).toBe(204);
    expect(await activeAdmins(h, t)).toBe(1);
  });

  it('never lets two admins removing each other at once leave the tenant without an active admin', async () => {
    for (const [method, suffix, body] of [
      ['PUT', '', { role: 'viewer' }],
      ['PATCH', '/status', { status: 'inactive' }],
      ['DELETE', '', undefined],
    ] as const) {
      const t = await h.tenant();
      const other = await h.user(t, 'admin');
      const results = await Promise.all([
        h.call(method, `/api/v1/users/${other.id}${suffix}`, { token: t.adminToken, body }),
        h.call(method, `/api/v1/users/${t.adminId}${suffix}`, { token: other.token, body }),
      ]);
      const codes = results.map((r) => r.statusCode);
      expect(codes.filter((code) => code < 300), `${method} ${codes}`).toHaveLength(1);
      // The loser is refused as the last admin, or (having lost admin rights first) as not an admin.
      const loser = results.find((r) => r.statusCode >= 300)!;
      expect(['invalid_state', 'forbidden', 'unauthorized']).toContain(loser.json().code);
      expect(await activeAdmins(h, t)).toBe(1);
      // Only the change that happened emitted its event (status changes emit none).
      const expected = { PUT: ['user.role_changed'], PATCH: [], DELETE: ['user.deleted'] }[method];
      expect((await events(h, t.tenantId)).map((e) => e.type)).toEqual(expected);
    }
  });

  it.runIf(kind === 'postgres')('holds the last-admin rule when both requests wait on the same rows (postgres)', async () => {
    const t = await h.tenant();
    const other = await h.user(t, 'admin');
    // A separate connection holds both admin rows, so both requests pass authentication and then queue.
    const blocker = new pg.Client({ connectionString: h.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select id from users where tenant_id = $1 for update', [t.tenantId]);
      const pending = Promise.all([
        h.call('PUT', `/api/v1/users/${other.id}`, { token: t.adminToken, body: { role: 'viewer' } }),
        h.call('PUT', `/api/v1/users/${t.adminId}`, { token: other.token, body: { role: 'viewer' } }),
      ]);
      await expect.poll(async () => {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where wait_event_type = 'Lock' and datname = current_database()`.execute(h.db);
        return rows[0]!.n;
      }, { timeout: 10_000 }).toBe(2);
      await blocker.query('commit');
      const results = await pending;
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      expect(results.find((r) => r.statusCode === 409)!.json().code).toBe('invalid_state');
      expect(await activeAdmins(h, t)).toBe(1);
    } finally {
      await blocker.end();
    }
  });
});
