import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, TEST_PASSWORD } from '../helpers/harness.js';
import { type Replica, startReplica } from '../helpers/interactions-replica.js';
import { STORES } from '../helpers/stores.js';
import { countRows, interactionBody } from '../helpers/interactions-fixtures.js';

// Each instance caches the credentials it resolved; a change made through another instance (or
// straight in the database) must still apply to the very next request on every instance.
describe.each(STORES)('credential cache across replicas [%s]', (kind) => {
  let h: Harness;
  let replica: Replica;
  beforeAll(async () => {
    h = await Harness.start(kind);
    replica = await startReplica(h);
  });
  afterAll(async () => {
    await replica?.close();
    await h?.close();
  });

  const onReplica = async (token: string, method = 'GET', url = '/api/v1/users') =>
    (await replica.call(method, url, { token })).statusCode;

  it('applies a role change, a disable and a password reset made elsewhere on the next request', async () => {
    const t = await h.tenant();
    const user = await h.user(t, 'admin');
    expect(await onReplica(user.token)).toBe(200); // cached now

    expect((await h.call('PUT', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { role: 'viewer' } })).statusCode).toBe(200);
    expect(await onReplica(user.token)).toBe(403);
    expect(await onReplica(user.token, 'GET', '/api/v1/users/me')).toBe(200);

    await h.call('PATCH', `/api/v1/users/${user.id}/status`, { token: t.adminToken, body: { status: 'inactive' } });
    expect(await onReplica(user.token, 'GET', '/api/v1/users/me')).toBe(401);

    const other = await h.user(t, 'viewer');
    expect(await onReplica(other.token, 'GET', '/api/v1/users/me')).toBe(200);
    await h.call('POST', `/api/v1/users/${other.id}/reset-password`, { token: t.adminToken, body: { new_password: `${TEST_PASSWORD}x` } });
    expect(await onReplica(other.token, 'GET', '/api/v1/users/me')).toBe(401);
  });

  it('applies a logout and an API key revocation made elsewhere on the next request', async () => {
    const t = await h.tenant();
    const user = await h.user(t, 'viewer');
    expect(await onReplica(user.token, 'GET', '/api/v1/users/me')).toBe(200);
    expect((await h.call('POST', '/api/v1/auth/logout', { token: user.token })).statusCode).toBe(204);
    expect(await onReplica(user.token, 'GET', '/api/v1/users/me')).toBe(401);

    const key = await h.apiKey(t, ['interactions:read']);
    expect(await onReplica(key, 'GET', '/api/v1/interactions')).toBe(200);
    const keys = (await h.call('GET', '/api/v1/api-keys', { token: t.adminToken })).json();
    const keyId = keys.api_keys.find((k: { name: string }) => k.name === 'test key').id;
    expect((await h.call('DELETE', `/api/v1/api-keys/${keyId}`, { token: t.adminToken })).statusCode).toBe(204);
    expect(await onReplica(key, 'GET', '/api/v1/interactions')).toBe(401);
  });

  it('serves a cached credential until the tenant\'s counter moves, and expires sessions by the clock', async () => {
    const t = await h.tenant();
    const user = await h.user(t, 'admin');
    expect(await onReplica(user.token)).toBe(200);
    // Demoted with triggers off: the counter does not move, so the cached role still answers.
    await h.db.transaction().execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx);
      await tx.updateTable('users').set({ role: 'viewer' }).where('id', '=', user.id).execute();
    });
    expect(await onReplica(user.token)).toBe(200);
    // Any write of a credential column bumps it by trigger, even one made by hand.
    await h.db.updateTable('users').set({ role: 'viewer' }).where('id', '=', user.id).execute();
    expect(await onReplica(user.token)).toBe(403);

    const other = await h.user(t, 'viewer');
    expect(await onReplica(other.token, 'GET', '/api/v1/users/me')).toBe(200);
    h.clock.advance(h.deps.config.auth.sessionTtlSeconds * 1000 + 1);
    expect(await onReplica(other.token, 'GET', '/api/v1/users/me')).toBe(401);
  });

  it('checks a create\'s cached credential in its own transaction: revoked or demoted elsewhere, nothing is stored', async () => {
    const t = await h.tenant();
    const key = await h.apiKey(t, ['interactions:write', 'interactions:read']);
    const admin = await h.user(t, 'admin');
    const create = (token: string, url = '/api/v1/interactions', body: unknown = interactionBody()) =>
      replica.call('POST', url, { token, body });
    expect((await create(key)).statusCode).toBe(201);
    expect((await create(admin.token)).statusCode).toBe(201);

    const keys = (await h.call('GET', '/api/v1/api-keys', { token: t.adminToken })).json();
    await h.call('DELETE', `/api/v1/api-keys/${keys.api_keys[0].id}`, { token: t.adminToken });
    expect((await create(key)).statusCode).toBe(401);
    expect((await create(key, '/api/v1/interactions/batch', [interactionBody()])).statusCode).toBe(401);

    await h.call('PUT', `/api/v1/users/${admin.id}`, { token: t.adminToken, body: { role: 'viewer' } });
    expect((await create(admin.token)).statusCode).toBe(403);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(2);

    // An unrelated change of the tenant moves the counter too: the create is checked again and stored.
    const other = await h.user(t, 'admin');
    expect((await create(other.token)).statusCode).toBe(201);
    await h.call('POST', '/api/v1/auth/logout', { token: t.adminToken });
    expect((await create(other.token)).statusCode).toBe(201);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(4);
  });

  it('keeps tenants apart: a change in one tenant leaves the others\' cached credentials in place', async () => {
    const t1 = await h.tenant();
    const t2 = await h.tenant();
    const u2 = await h.user(t2, 'admin');
    expect(await onReplica(u2.token)).toBe(200);
    const u1 = await h.user(t1, 'admin');
    await h.db.updateTable('users').set({ role: 'viewer' }).where('id', '=', u1.id).execute();
    const { rows } = await sql<{ credentials: string }>`select credentials::text from tenant_versions where tenant_id = ${t2.tenantId}`
      .execute(h.db);
    const before = rows[0]?.credentials ?? '0';
    expect(await onReplica(u2.token)).toBe(200);
    const { rows: after } = await sql<{ credentials: string }>`select credentials::text from tenant_versions where tenant_id = ${t2.tenantId}`
      .execute(h.db);
    expect(after[0]?.credentials ?? '0').toBe(before);
  });
});
