import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/kernel/ids.js';
import { Harness } from '../helpers/harness.js';
import { createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { type Replica, startReplica } from '../helpers/interactions-replica.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('policy cache across replicas [%s]', (kind) => {
  let h: Harness;
  let replica: Replica;
  beforeAll(async () => {
    h = await Harness.start(kind);
    replica = await startReplica(h);
  });
  afterAll(async () => {
    await replica.close();
    await h.close();
  });

  const decidedOnReplica = async (token: string, body: Record<string, unknown> = {}) => {
    const response = await replica.call('POST', '/api/v1/interactions', { token, body: interactionBody(body) });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().policy_decisions.map((d: { policy_name: string; action: string }) => `${d.policy_name}:${d.action}`);
  };

  it('sees each policy change made through the other instance on its very next create', async () => {
    const t = await h.tenant();
    expect(await decidedOnReplica(t.adminToken)).toEqual([]); // the replica caches "no policies"
    const policy = await createPolicy(h, t, { name: 'p', action: 'block' });
    expect(await decidedOnReplica(t.adminToken)).toEqual(['p:block']);
    await h.call('PUT', `/api/v1/policies/${policy.id}`, { token: t.adminToken, body: { action: 'coach' } });
    expect(await decidedOnReplica(t.adminToken)).toEqual(['p:coach']);
    await h.call('POST', `/api/v1/policies/${policy.id}/disable`, { token: t.adminToken });
    expect(await decidedOnReplica(t.adminToken)).toEqual([]);
    await h.call('POST', `/api/v1/policies/${policy.id}/enable`, { token: t.adminToken });
    expect(await decidedOnReplica(t.adminToken)).toEqual(['p:coach']);
    await h.call('PUT', `/api/v1/policies/${policy.id}`, { token: t.adminToken, body: { conditions: { platform_ids: ['claude'] } } });
    expect(await decidedOnReplica(t.adminToken)).toEqual([]);
    expect(await decidedOnReplica(t.adminToken, { platform_id: 'claude' })).toEqual(['p:coach']);
    await h.call('DELETE', `/api/v1/policies/${policy.id}`, { token: t.adminToken });
    expect(await decidedOnReplica(t.adminToken, { platform_id: 'claude' })).toEqual([]);
  });

  it('keeps serving its cache until the tenant\'s policies counter moves', async () => {
    const t = await h.tenant();
    await createPolicy(h, t, { name: 'a', action: 'log' });
    expect(await decidedOnReplica(t.adminToken)).toEqual(['a:log']);
    // A row written with triggers off does not move the counter: the cache keeps serving.
    const now = h.clock.now();
    await h.db.transaction().execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx);
      await tx.insertInto('policies').values({
        tenant_id: t.tenantId, id: uuidv7(), name: 'b', description: '', action: 'block', severity: 'low', enabled: true,
        conditions: '{}', created_at: now, updated_at: now,
      }).execute();
    });
    expect(await decidedOnReplica(t.adminToken)).toEqual(['a:log']);
    await h.db.updateTable('tenant_versions').set((eb) => ({ policies: eb('policies', '+', 1) }))
      .where('tenant_id', '=', t.tenantId).execute();
    expect(await decidedOnReplica(t.adminToken)).toEqual(['b:block', 'a:log']);
  });

  it('sees a policy written by any means at once: the counter is bumped by trigger', async () => {
    const t = await h.tenant();
    expect(await decidedOnReplica(t.adminToken)).toEqual([]);
    const now = h.clock.now();
    const id = uuidv7();
    await h.db.insertInto('policies').values({
      tenant_id: t.tenantId, id, name: 'by hand', description: '', action: 'coach', severity: 'low', enabled: true,
      conditions: '{}', created_at: now, updated_at: now,
    }).execute();
    expect(await decidedOnReplica(t.adminToken)).toEqual(['by hand:coach']);
    await h.db.deleteFrom('policies').where('tenant_id', '=', t.tenantId).where('id', '=', id).execute();
    expect(await decidedOnReplica(t.adminToken)).toEqual([]);
  });

  it('keeps tenants apart: a change in one tenant does not leak into another', async () => {
    const t1 = await h.tenant();
    const t2 = await h.tenant();
    await createPolicy(h, t1, { name: 'only t1', action: 'log' });
    expect(await decidedOnReplica(t2.adminToken)).toEqual([]);
    expect(await decidedOnReplica(t1.adminToken)).toEqual(['only t1:log']);
  });
});
