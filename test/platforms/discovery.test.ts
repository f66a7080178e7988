import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedEvents, Harness, type TestTenant } from '../helpers/harness.js';
import { createInteraction, interactionBody } from '../helpers/interactions-fixtures.js';
import { type Replica, startReplica } from '../helpers/interactions-replica.js';
import { STORES } from '../helpers/stores.js';

// `platform.discovered`: once per tenant and platform, at its first stored interaction, whatever
// the concurrency and the number of application instances on the database.
describe.each(STORES)('platform discovery [%s]', (kind) => {
  let h: Harness;
  let replica: Replica;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
    replica = await startReplica(h);
  });
  afterAll(async () => {
    await replica.close();
    await h.close();
  });

  const discoveries = async (t: TestTenant) => (await capturedEvents(h, t.tenantId, 'platform.discovered')).map((e) => e.data);
  const create = (call: Harness['call'] | Replica['call'], t: TestTenant, platformId: string) =>
    call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody({ platform_id: platformId, user_id: t.adminId }) });

  it('announces the first interaction on a platform with its user and time, and none after it', async () => {
    const t = await h.tenant();
    const first = await createInteraction(h, t, { platform_id: 'deepseek', user_id: t.adminId });
    await createInteraction(h, t, { platform_id: 'deepseek' });
    await createInteraction(h, t, { platform_id: 'DeepSeek ' });
    expect(await discoveries(t)).toEqual([{ platform_id: 'deepseek', first_seen: first.timestamp, user_id: t.adminId, catalog: true }]);
  });

  it('says catalog: false for a platform the catalog lacks, and null for an interaction without user', async () => {
    const t = await h.tenant();
    await createInteraction(h, t, { platform_id: 'acme-notes-ai' });
    expect(await discoveries(t)).toEqual([{ platform_id: 'acme-notes-ai', first_seen: expect.any(String), user_id: null, catalog: false }]);
  });

  it('announces each platform of a batch once, and each tenant its own', async () => {
    const t = await h.tenant();
    const other = await h.tenant('Other');
    const batch = await h.call('POST', '/api/v1/interactions/batch', {
      token: t.adminToken, body: ['openai', 'anthropic', 'openai', 'mistral'].map((platform_id) => interactionBody({ platform_id })),
    });
    expect(batch.statusCode, batch.body).toBe(200);
    await createInteraction(h, other, { platform_id: 'openai' });
    expect((await discoveries(t)).map((d) => d.platform_id).sort()).toEqual(['anthropic', 'mistral', 'openai']);
    expect((await discoveries(other)).map((d) => d.platform_id)).toEqual(['openai']);
  });

  it('announces a new platform exactly once under 50 concurrent creates spread over two application instances', async () => {
    const t = await h.tenant();
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => create(i % 2 ? replica.call : h.call.bind(h), t, 'perplexity')));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(201));
    const found = await discoveries(t);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ platform_id: 'perplexity', user_id: t.adminId, catalog: true });
    await create(replica.call, t, 'perplexity');
    expect(await discoveries(t)).toHaveLength(1);
  });

  it('does not announce a platform used before sightings were recorded, and records it as known', async () => {
    const t = await h.tenant();
    await createInteraction(h, t, { platform_id: 'cursor' });
    // As after the upgrade: the interaction is there, its sighting is not; and the process has not met it.
    await h.db.deleteFrom('platform_sightings').where('tenant_id', '=', t.tenantId).execute();
    await h.db.deleteFrom('webhook_messages').where('tenant_id', '=', t.tenantId).execute();
    const fresh = await startReplica(h);
    try {
      expect((await create(fresh.call, t, 'cursor')).statusCode).toBe(201);
    } finally {
      await fresh.close();
    }
    expect(await discoveries(t)).toEqual([]);
    expect(await h.db.selectFrom('platform_sightings').select(['platform_id', 'discovered']).where('tenant_id', '=', t.tenantId).execute())
      .toEqual([{ platform_id: 'cursor', discovered: false }]);
  });

  it("erasing a person's interactions removes their id from the sightings", async () => {
    const t = await h.tenant();
    const person = '0190a0a0-0000-7000-8000-00000000e1a5';
    await createInteraction(h, t, { platform_id: 'openai', user_id: person });
    const erased = await h.call('POST', `/api/v1/users/${person}/erase-interactions`, { token: t.adminToken });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(await h.db.selectFrom('platform_sightings').select('user_id').where('tenant_id', '=', t.tenantId).execute()).toEqual([{ user_id: null }]);
  });
});
