import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createInteraction, outboxEvents } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const CARD = '4111 1111 1111 1111';
const IBAN = 'FR76 3000 6000 0112 3456 7890 189';
const FINGERPRINT = /^fp_[\w-]{43}$/;

const detected = (type: string, value: string) => ({ type, value, score: 0.9, start: 0, end: value.length });

describe.each(STORES)('detected values: fingerprints, lookup, masking [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  const lookup = (t: TestTenant, body: unknown, token = t.adminToken) => h.call('POST', '/api/v1/signals/lookup', { token, body });
  const listByFingerprint = async (t: TestTenant, fingerprint: string, query: Record<string, string> = {}) => {
    const response = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { fingerprint, ...query } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { data: Array<{ id: string }>; total: number; next_cursor: string | null };
  };

  it('gives the same value of a type one fingerprint within a tenant, however written, and another elsewhere', async () => {
    const t = await h.tenant();
    const other = await h.tenant('Other');
    const spaced = await createInteraction(h, t, { classifications: [detected('CREDIT_CARD', CARD), detected('IBAN', IBAN)] });
    const packed = await createInteraction(h, t, { classifications: [detected('credit_card', CARD.replaceAll(' ', '-'))] });
    const elsewhere = await createInteraction(h, other, { classifications: [detected('CREDIT_CARD', CARD)] });
    const [card, iban] = spaced.classifications;
    expect(card).toEqual({ ...detected('CREDIT_CARD', CARD), validated: true, fingerprint: expect.stringMatching(FINGERPRINT) });
    expect(iban.fingerprint).toMatch(FINGERPRINT);
    expect(iban.fingerprint).not.toBe(card.fingerprint);
    expect(packed.classifications[0].value).toBe(CARD.replaceAll(' ', '-')); // returned as sent
    expect(packed.classifications[0].fingerprint).toBe(card.fingerprint);
    expect(elsewhere.classifications[0].fingerprint).not.toBe(card.fingerprint);
    const read = await h.call('GET', `/api/v1/interactions/${spaced.id}`, { token: t.adminToken });
    expect(read.json().classifications).toEqual(spaced.classifications);
  });

  it('stores values encrypted and events sealed, yet events and replays carry the values as sent', async () => {
    const t = await h.tenant();
    const body = { platform_id: 'openai', content_hash: 'a'.repeat(64), classifications: [detected('IBAN', IBAN)] };
    const first = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body, headers: { 'idempotency-key': 'k1' } });
    expect(first.statusCode).toBe(201);
    const [row] = await h.db.selectFrom('interactions').selectAll().where('tenant_id', '=', t.tenantId).execute();
    expect(row!.classifications).toEqual([{
      type: 'IBAN', sealed_value: expect.stringMatching(/^v1\./), score: 0.9, start: 0, end: IBAN.length, validated: true,
      fingerprint: first.json().classifications[0].fingerprint,
    }]);
    const stored = JSON.stringify(await h.db.selectFrom('webhook_messages').select('payload').where('tenant_id', '=', t.tenantId).execute())
      + JSON.stringify(await h.db.selectFrom('idempotency_keys').select('response_body').where('tenant_id', '=', t.tenantId).execute());
    expect(stored).not.toContain(IBAN);
    expect(stored).toContain('v1.');
    const [created] = await outboxEvents(h, t.tenantId, 'interaction.created');
    expect(created!.data.classifications[0].value).toBe(IBAN);
    const replay = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body, headers: { 'idempotency-key': 'k1' } });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
  });

  it('lists the interactions of a fingerprint, with the other filters, paged, and only the tenant\'s', async () => {
    const t = await h.tenant();
    const other = await h.tenant('Other');
    const hits = [];
    for (const platform of ['openai', 'mistral', 'openai']) {
      hits.push(await createInteraction(h, t, { platform_id: platform, classifications: [detected('CREDIT_CARD', CARD)] }));
    }
    await createInteraction(h, t, { classifications: [detected('CREDIT_CARD', '5555 5555 5555 4444')] });
    await createInteraction(h, other, { classifications: [detected('CREDIT_CARD', CARD)] });
    const fingerprint = hits[0].classifications[0].fingerprint as string;

    const all = await listByFingerprint(t, fingerprint);
    expect(all.total).toBe(3);
    expect(all.data.map((i) => i.id)).toEqual(hits.map((i) => i.id).reverse());
    const openai = await listByFingerprint(t, fingerprint, { platform_id: 'openai', classification_type: 'CREDIT_CARD' });
    expect(openai.data.map((i) => i.id)).toEqual([hits[2].id, hits[0].id]);
    expect((await listByFingerprint(t, fingerprint, { classification_type: 'IBAN' })).total).toBe(0);
    const firstPage = await listByFingerprint(t, fingerprint, { limit: '2' });
    const secondPage = await listByFingerprint(t, fingerprint, { limit: '2', cursor: firstPage.next_cursor! });
    expect([...firstPage.data, ...secondPage.data].map((i) => i.id)).toEqual(hits.map((i) => i.id).reverse());
    // The total counted from the fingerprint's rows alone agrees with the time range and the user.
    const since = hits[1].timestamp as string;
    expect((await listByFingerprint(t, fingerprint, { start_date: since })).total).toBe(hits.filter((i) => i.timestamp >= since).length);
    expect((await listByFingerprint(t, fingerprint, { start_date: new Date(Date.parse(hits[2].timestamp) + 1).toISOString() })).total).toBe(0);
    expect((await listByFingerprint(t, fingerprint, { user_id: crypto.randomUUID() })).total).toBe(0);
    const bySort = await listByFingerprint(t, fingerprint, { sort: '-risk_score' });
    expect(bySort.total).toBe(3);
    // Another tenant's fingerprint finds nothing here.
    expect((await listByFingerprint(other, fingerprint)).total).toBe(0);

    const exported = await h.call('GET', '/api/v1/interactions/export', { token: t.adminToken, query: { format: 'ndjson', fingerprint } });
    expect(exported.statusCode).toBe(200);
    const lines = exported.body.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.id).sort()).toEqual(hits.map((i) => i.id).sort());
    expect(lines[0].classifications[0].value).toBe(CARD);

    const malformed = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { fingerprint: 'not-a-fingerprint' } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('validation_error');
  });

  it('looks a value up: interactions, distinct users, first and last seen; zeros when never seen', async () => {
    const t = await h.tenant();
    const [alice, bob] = [crypto.randomUUID(), crypto.randomUUID()];
    const created = [];
    for (const user of [alice, bob, alice, null]) {
      created.push(await createInteraction(h, t, { user_id: user, classifications: [detected('IBAN', IBAN), detected('IBAN', IBAN.toLowerCase())] }));
      h.clock.advance(60_000);
    }
    const found = await lookup(t, { type: 'iban', value: IBAN.replaceAll(' ', '') });
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toEqual({
      fingerprint: created[0].classifications[0].fingerprint, interactions: 4, users: 2,
      first_seen: created[0].timestamp, last_seen: created[3].timestamp,
    });
    const viewer = await h.user(t, 'viewer');
    const never = await lookup(t, { type: 'IBAN', value: 'DE89 3704 0044 0532 0130 00' }, viewer.token);
    expect(never.json()).toEqual({ fingerprint: expect.stringMatching(FINGERPRINT), interactions: 0, users: 0, first_seen: null, last_seen: null });
    const readKey = await h.apiKey(t, ['interactions:read']);
    expect((await lookup(t, { type: 'IBAN', value: IBAN }, readKey)).json().interactions).toBe(4);
    const audited = await h.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'signals.looked_up').orderBy('occurred_at').orderBy('id').execute();
    expect(audited.map((entry) => [entry.actor_id, entry.target_id, entry.details])).toEqual([
      [t.adminId, found.json().fingerprint, { type: 'IBAN', interactions: 4 }],
      [viewer.id, never.json().fingerprint, { type: 'IBAN', interactions: 0 }],
      [expect.any(String), found.json().fingerprint, { type: 'IBAN', interactions: 4 }],
    ]);
    // The value in none of its forms (a short piece such as '3000' also turns up in ids and fingerprints by chance).
    for (const form of [IBAN, IBAN.replace(/ /g, ''), IBAN.replace(/\D/g, '')]) expect(JSON.stringify(audited)).not.toContain(form);
  });

  it('refuses a bad lookup with 400, no token with 401, a key without read scope with 403', async () => {
    const t = await h.tenant();
    for (const body of [{ type: 'IBAN' }, { value: IBAN }, { type: '', value: IBAN }, { type: 'IBAN', value: '' },
      { type: 'IBAN', value: 42 }, { type: 'IBAN', value: 'x'.repeat(100_000) }, { type: 'IBAN', value: 'a\u0000b' }]) {
      const response = await lookup(t, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('validation_error');
      expect(response.body).not.toContain(IBAN);
    }
    expect((await lookup(t, { type: 'IBAN', value: IBAN, extra: true })).statusCode).toBe(200); // unknown fields are ignored
    expect((await lookup(t, { type: 'IBAN', value: IBAN }, '')).statusCode).toBe(401);
    const writeKey = await h.apiKey(t, ['interactions:write']);
    expect((await lookup(t, { type: 'IBAN', value: IBAN }, writeKey)).statusCode).toBe(403);
  });

  it('masks values from the change on when the tenant chooses mask, audited; fingerprints still find them', async () => {
    const t = await h.tenant();
    const before = await createInteraction(h, t, { classifications: [detected('CREDIT_CARD', CARD)] });
    const viewer = await h.user(t, 'viewer');
    const refused = await h.call('PUT', '/api/v1/tenant', { token: viewer.token, body: { signal_values: 'mask' } });
    expect(refused.statusCode).toBe(403);
    const invalid = await h.call('PUT', '/api/v1/tenant', { token: t.adminToken, body: { signal_values: 'hide' } });
    expect(invalid.statusCode).toBe(400);
    const changed = await h.call('PUT', '/api/v1/tenant', { token: t.adminToken, body: { signal_values: 'mask' } });
    expect(changed.json().signal_values).toBe('mask');
    const [audit] = await h.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'tenant.updated').execute();
    expect(audit!.details).toEqual({ signal_values: { from: 'keep', to: 'mask' } });

    const after = await createInteraction(h, t, { classifications: [detected('CREDIT_CARD', CARD), detected('EMAIL', 'Jo@Example.com'), detected('API_KEY', 'abc')] });
    expect(after.classifications.map((c: { value: string }) => c.value)).toEqual(['************1111', '**********.com', '****']);
    expect(after.classifications[0].fingerprint).toBe(before.classifications[0].fingerprint);
    const [row] = await h.db.selectFrom('interactions').select('classifications').where('tenant_id', '=', t.tenantId)
      .where('id', '=', after.id).execute();
    expect(JSON.stringify(row)).not.toContain('4111');
    expect(row!.classifications[0]).toMatchObject({ masked_value: '************1111' });
    const events = await outboxEvents(h, t.tenantId, 'interaction.created');
    expect(events.at(-1)!.data.classifications[0].value).toBe('************1111');
    // Interactions recorded before the change keep their value.
    const old = await h.call('GET', `/api/v1/interactions/${before.id}`, { token: t.adminToken });
    expect(old.json().classifications[0].value).toBe(CARD);
    expect((await lookup(t, { type: 'CREDIT_CARD', value: CARD })).json().interactions).toBe(2);
  });

  it('deletes fingerprints with their interactions: delete, erasure', async () => {
    const t = await h.tenant();
    const user = crypto.randomUUID();
    const kept = await createInteraction(h, t, { classifications: [detected('IBAN', IBAN)] });
    const deleted = await createInteraction(h, t, { classifications: [detected('IBAN', IBAN)] });
    await createInteraction(h, t, { user_id: user, classifications: [detected('IBAN', IBAN)] });
    expect((await h.call('DELETE', `/api/v1/interactions/${deleted.id}`, { token: t.adminToken })).statusCode).toBe(204);
    expect((await h.call('POST', `/api/v1/users/${user}/erase-interactions`, { token: t.adminToken })).statusCode).toBe(200);
    const rows = await h.db.selectFrom('interaction_fingerprints').select('interaction_id').where('tenant_id', '=', t.tenantId).execute();
    expect(rows.map((row) => row.interaction_id)).toEqual([kept.id]);
    expect((await lookup(t, { type: 'IBAN', value: IBAN })).json()).toMatchObject({ interactions: 1, users: 0 });
  });
});
