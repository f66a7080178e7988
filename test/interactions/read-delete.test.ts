import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import {
  classification, countRows, createInteraction, createPolicy, interactionBody, randomHash,
} from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('get, search and delete interactions [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  it('gets an interaction by id for admins, viewers and read keys', async () => {
    const t = await h.tenant();
    const created = await createInteraction(h, t, { classifications: [classification('EMAIL')] });
    const viewer = await h.user(t, 'viewer');
    const readKey = await h.apiKey(t, ['interactions:read']);
    for (const token of [t.adminToken, viewer.token, readKey]) {
      const response = await h.call('GET', `/api/v1/interactions/${created.id}`, { token });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(created);
    }
    const writeKey = await h.apiKey(t, ['interactions:write']);
    expect((await h.call('GET', `/api/v1/interactions/${created.id}`, { token: writeKey })).statusCode).toBe(403);
    expect((await h.call('GET', `/api/v1/interactions/${created.id}`)).statusCode).toBe(401);
  });

  it('answers 404 for an unknown id, a malformed id and another tenant\'s id', async () => {
    const t = await h.tenant();
    const other = await h.tenant('Other');
    const theirs = await createInteraction(h, other);
    for (const id of [crypto.randomUUID(), 'not-a-uuid', theirs.id, 'batch']) {
      const response = await h.call('GET', `/api/v1/interactions/${id}`, { token: t.adminToken });
      expect(response.statusCode, id).toBe(404);
      expect(response.json()).toMatchObject({ code: 'not_found', error: expect.any(String) });
    }
  });

  it('searches by content hash in any case, newest first, with the contract\'s fields', async () => {
    const t = await h.tenant();
    const hash = randomHash();
    const found = [];
    try {
      for (let i = 0; i < 3; i += 1) {
        found.push(await createInteraction(h, t, { content_hash: hash, risk_score: i / 10, classifications: [classification('PHONE')] }));
        h.clock.advance(60_000);
      }
    } finally {
      h.clock.reset();
    }
    await createInteraction(h, t);
    const other = await h.tenant('Other');
    await createInteraction(h, other, { content_hash: hash });

    const response = await h.call('GET', '/api/v1/interactions/search', { token: t.adminToken, query: { content_hash: hash.toUpperCase() } });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual([...found].reverse().map((i) => ({
      id: i.id, platform_id: i.platform_id, content_hash: hash, timestamp: i.timestamp, risk_score: i.risk_score,
      classifications: i.classifications,
    })));

    const limited = await h.call('GET', '/api/v1/interactions/search', { token: t.adminToken, query: { content_hash: hash, limit: 1 } });
    expect(limited.json().map((i: { id: string }) => i.id)).toEqual([found[2].id]);
    const ranged = await h.call('GET', '/api/v1/interactions/search', {
      token: t.adminToken, query: { content_hash: hash, start_date: found[1].timestamp, end_date: found[1].timestamp },
    });
    expect(ranged.json().map((i: { id: string }) => i.id)).toEqual([found[1].id]);
    const none = await h.call('GET', '/api/v1/interactions/search', { token: t.adminToken, query: { content_hash: randomHash() } });
    expect(none.json()).toEqual([]);
  });

  it('lets viewers and read keys search; refuses write keys and anonymous callers', async () => {
    const t = await h.tenant();
    const created = await createInteraction(h, t);
    const viewer = await h.user(t, 'viewer');
    const readKey = await h.apiKey(t, ['interactions:read']);
    const writeKey = await h.apiKey(t, ['interactions:write']);
    const search = (token?: string) =>
      h.call('GET', '/api/v1/interactions/search', { token, query: { content_hash: created.content_hash } });
    expect((await search(viewer.token)).json()).toHaveLength(1);
    expect((await search(readKey)).json()).toHaveLength(1);
    expect((await search(writeKey)).statusCode).toBe(403);
    expect((await search()).statusCode).toBe(401);
  });

  it.each([
    ['no content_hash', {}],
    ['a content_hash of 63 characters', { content_hash: 'a'.repeat(63) }],
    ['a content_hash that is not hex', { content_hash: 'z'.repeat(64) }],
    ['limit 501', { content_hash: 'a'.repeat(64), limit: 501 }],
    ['limit 0', { content_hash: 'a'.repeat(64), limit: 0 }],
    ['a bad start_date', { content_hash: 'a'.repeat(64), start_date: '2024-01-32T00:00:00Z' }],
    ['start_date after end_date', { content_hash: 'a'.repeat(64), start_date: '2024-02-01T00:00:00Z', end_date: '2024-01-01T00:00:00Z' }],
  ])('refuses a search with %s: 400', async (_name, query) => {
    const t = await h.tenant();
    const response = await h.call('GET', '/api/v1/interactions/search', { token: t.adminToken, query });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('validation_error');
  });

  it('deletes an interaction (admin): 204, audited with its content hash, 404 afterwards; its alerts stay', async () => {
    const t = await h.tenant();
    await createPolicy(h, t, { name: 'block all', action: 'block' });
    const created = await createInteraction(h, t, { classifications: [classification('EMAIL')] });
    const response = await h.call('DELETE', `/api/v1/interactions/${created.id}`, { token: t.adminToken });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await h.call('GET', `/api/v1/interactions/${created.id}`, { token: t.adminToken })).statusCode).toBe(404);
    expect((await h.call('DELETE', `/api/v1/interactions/${created.id}`, { token: t.adminToken })).statusCode).toBe(404);
    const search = await h.call('GET', '/api/v1/interactions/search', { token: t.adminToken, query: { content_hash: created.content_hash } });
    expect(search.json()).toEqual([]);
    expect(await h.db.selectFrom('interaction_classification_types').selectAll().where('interaction_id', '=', created.id).execute())
      .toEqual([]);

    const audit = await h.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'interaction.deleted').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_type: 'user', actor_id: t.adminId, target_type: 'interaction', target_id: created.id,
      details: { content_hash: created.content_hash, platform_id: 'openai' },
    });
    const alerts = await h.db.selectFrom('alerts').selectAll().where('interaction_id', '=', created.id).execute();
    expect(alerts).toHaveLength(1);
  });

  it('refuses deletes by viewers and API keys (even with both scopes), anonymous callers, and other tenants', async () => {
    const t = await h.tenant();
    const created = await createInteraction(h, t);
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:write', 'interactions:read']);
    const other = await h.tenant('Other');
    const del = (token?: string) => h.call('DELETE', `/api/v1/interactions/${created.id}`, { token });
    expect((await del(viewer.token)).statusCode).toBe(403);
    expect((await del(key)).statusCode).toBe(403);
    expect((await del()).statusCode).toBe(401);
    expect((await del(other.adminToken)).statusCode).toBe(404);
    expect((await h.call('DELETE', '/api/v1/interactions/not-a-uuid', { token: t.adminToken })).statusCode).toBe(404);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(1);
    expect(await h.db.selectFrom('audit_log').selectAll().where('action', '=', 'interaction.deleted')
      .where('target_id', '=', created.id).execute()).toEqual([]);
  });

  it('keeps interactions apart per tenant in list and search', async () => {
    const t = await h.tenant();
    const other = await h.tenant('Other');
    const hash = randomHash();
    await h.call('POST', '/api/v1/interactions', { token: other.adminToken, body: interactionBody({ content_hash: hash }) });
    expect((await h.call('GET', '/api/v1/interactions', { token: t.adminToken })).json().total).toBe(0);
    expect((await h.call('GET', '/api/v1/interactions/search', { token: t.adminToken, query: { content_hash: hash } })).json())
      .toEqual([]);
  });
});
