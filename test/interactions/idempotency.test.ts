import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { countRows, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const HOUR = 60 * 60 * 1000;

describe.each(STORES)('Idempotency-Key [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  const create = (token: string, body: unknown, key: string) =>
    h.call('POST', '/api/v1/interactions', { token, body, headers: { 'idempotency-key': key } });
  const batch = (token: string, body: unknown, key: string) =>
    h.call('POST', '/api/v1/interactions/batch', { token, body, headers: { 'idempotency-key': key } });

  it('replays the first response of a create and stores nothing new', async () => {
    const t = await h.tenant();
    await createPolicy(h, t, { name: 'block all', action: 'block' });
    const body = interactionBody({ risk_score: 0.9 });
    const first = await create(t.adminToken, body, 'key-1');
    const counts = async () => [
      await countRows(h, 'interactions', t.tenantId), await countRows(h, 'alerts', t.tenantId),
      await countRows(h, 'webhook_messages', t.tenantId),
    ];
    const before = await counts();
    const retry = await create(t.adminToken, body, 'key-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(await counts()).toEqual(before);
    expect(before[0]).toBe(1);
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const t = await h.tenant();
    const body = interactionBody({ content_metadata: { a: 1, b: { c: 2, d: 3 } }, risk_score: 0.1 });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    reordered.content_metadata = { b: { d: 3, c: 2 }, a: 1 };
    const first = await create(t.adminToken, body, 'order');
    const retry = await create(t.adminToken, reordered, 'order');
    expect(retry.statusCode).toBe(201);
    expect(retry.json().id).toBe(first.json().id);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(1);
  });

  it('refuses the same key with a different body: 409 idempotency_conflict, nothing stored', async () => {
    const t = await h.tenant();
    await create(t.adminToken, interactionBody(), 'key-2');
    const conflict = await create(t.adminToken, interactionBody(), 'key-2');
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().code).toBe('idempotency_conflict');
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(1);
  });

  it('refuses a key of a create reused on a batch (and back)', async () => {
    const t = await h.tenant();
    const body = interactionBody();
    await create(t.adminToken, body, 'shared');
    expect((await batch(t.adminToken, [body], 'shared')).statusCode).toBe(409);
    await batch(t.adminToken, [body], 'shared-2');
    expect((await create(t.adminToken, body, 'shared-2')).statusCode).toBe(409);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(2);
  });

  it('replays within 24 hours and treats the key as new after them', async () => {
    const t = await h.tenant();
    const key = await h.apiKey(t, ['interactions:write']); // sessions expire within 24 h; keys do not
    const body = interactionBody();
    const first = await create(key, body, 'daily');
    try {
      h.clock.advance(23 * HOUR);
      const replay = await create(key, body, 'daily');
      expect(replay.json().id).toBe(first.json().id);
      h.clock.advance(1 * HOUR + 1000);
      const fresh = await create(key, body, 'daily');
      expect(fresh.statusCode).toBe(201);
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();
      expect(fresh.json().id).not.toBe(first.json().id);
      const again = await create(key, body, 'daily');
      expect(again.json().id).toBe(fresh.json().id);
      expect(await countRows(h, 'interactions', t.tenantId)).toBe(2);
    } finally {
      h.clock.reset();
    }
  });

  it('purges the expired keys of the tenant after a keyed create, at most once an hour', async () => {
    const t = await h.tenant();
    const key = await h.apiKey(t, ['interactions:write']);
    await create(key, interactionBody(), 'old-1');
    await create(key, interactionBody(), 'old-2');
    try {
      h.clock.advance(25 * HOUR);
      await create(key, interactionBody(), 'new-1');
      const keys = async () => (await h.db.selectFrom('idempotency_keys').select('key').where('tenant_id', '=', t.tenantId)
        .orderBy('key').execute()).map((k) => k.key);
      expect(await keys()).toEqual(['new-1']);
      h.clock.advance(25 * HOUR);
      await create(key, interactionBody(), 'new-2'); // 25 h after the purge: purges again
      expect(await keys()).toEqual(['new-2']);
      h.clock.advance(30 * 60 * 1000);
      await h.db.updateTable('idempotency_keys').set({ created_at: new Date(0) }).where('tenant_id', '=', t.tenantId).execute();
      await create(key, interactionBody(), 'new-3'); // 30 min after the last purge: none yet
      expect(await keys()).toEqual(['new-2', 'new-3']);
    } finally {
      h.clock.reset();
    }
  });

  it('replays a batch response and stores nothing new', async () => {
    const t = await h.tenant();
    const items = [interactionBody(), { platform_id: 'bad' }, interactionBody()];
    const first = await batch(t.adminToken, items, 'batch-1');
    const retry = await batch(t.adminToken, items, 'batch-1');
    expect(first.json()).toEqual({ received: 3, stored: 2 });
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual({ received: 3, stored: 2 });
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(2);
    const changed = await batch(t.adminToken, [items[0], items[2]], 'batch-1');
    expect(changed.statusCode).toBe(409);
  });

  it('stores one interaction when duplicates with one key arrive concurrently', async () => {
    const t = await h.tenant();
    const body = interactionBody();
    const responses = await Promise.all(Array.from({ length: 6 }, () => create(t.adminToken, body, 'race')));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(1);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(1);
    const created = await h.db.selectFrom('webhook_messages').select('id')
      .where('tenant_id', '=', t.tenantId).where('event_type', '=', 'interaction.created').execute();
    expect(created).toHaveLength(1);
  });

  it('keeps keys per tenant', async () => {
    const t1 = await h.tenant();
    const t2 = await h.tenant();
    const body = interactionBody();
    const a = await create(t1.adminToken, body, 'same-key');
    const b = await create(t2.adminToken, body, 'same-key');
    expect(b.statusCode).toBe(201);
    expect(b.json().id).not.toBe(a.json().id);
    expect(b.json().tenant_id).toBe(t2.tenantId);
  });

  it('stores no key for a refused request, so a corrected retry with the key succeeds', async () => {
    const t = await h.tenant();
    const refused = await create(t.adminToken, interactionBody({ risk_score: 3 }), 'fix-me');
    expect(refused.statusCode).toBe(400);
    expect(await countRows(h, 'idempotency_keys', t.tenantId)).toBe(0);
    expect((await create(t.adminToken, interactionBody(), 'fix-me')).statusCode).toBe(201);
  });

  it('refuses malformed keys with 400', async () => {
    const t = await h.tenant();
    for (const key of ['x'.repeat(256), 'has space', 'accentué']) {
      const response = await create(t.adminToken, interactionBody(), key);
      expect(response.statusCode, key).toBe(400);
      expect(response.json().code).toBe('validation_error');
    }
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(0);
  });

  it('does not replay across a different body sent without a key', async () => {
    const t = await h.tenant();
    const body = interactionBody();
    await create(t.adminToken, body, 'k');
    const unkeyed = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body });
    expect(unkeyed.statusCode).toBe(201);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(2);
  });
});
