import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/modules/platforms/platforms.catalog.js';
import { capturedEvents, Harness, type TestTenant } from '../helpers/harness.js';
import { createInteraction } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

type Platform = { id: string; status: string; catalog: boolean } & Record<string, unknown>;

describe.each(STORES)('platforms [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  const list = async (token: string): Promise<Platform[]> => {
    const response = await h.call('GET', '/api/v1/platforms', { token });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.total).toBe(body.platforms.length);
    return body.platforms;
  };
  const platformOf = async (token: string, id: string) => (await list(token)).find((p) => p.id === id);
  const setStatus = (t: TestTenant, id: string, body: unknown, token = t.adminToken) =>
    h.call('PUT', `/api/v1/platforms/${id}/status`, { token, body });
  const auditOf = (tenantId: string) => h.db.selectFrom('audit_log').select(['action', 'target_type', 'target_id', 'details'])
    .where('tenant_id', '=', tenantId).where('action', 'like', 'platform.%').orderBy('occurred_at').orderBy('id').execute();

  /** A webhook that takes only `audit.entry`, so the entries' events are queued where the test can read them. */
  const subscribeToAudit = async (t: TestTenant) => {
    const now = h.clock.now();
    await h.db.insertInto('webhooks').values({
      tenant_id: t.tenantId, id: `whk_audit${t.tenantId.slice(-8)}`, url: 'https://127.0.0.1:9/siem', events: JSON.stringify(['audit.entry']),
      active: true, active_since: now, description: 'siem', headers: '{}', auth_token: '', signing_secret: 'whsec_siem',
      previous_signing_secret: null, previous_secret_expires_at: null, created_by: null, created_at: now, updated_at: now,
      last_delivery_at: null,
    }).execute();
  };

  it('lists the whole catalog, by id, unsanctioned until set, for admins and viewers', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const platforms = await list(viewer.token);
    expect(platforms.map((p) => p.id)).toEqual(CATALOG.map((entry) => entry.id).sort());
    const openai = CATALOG.find((entry) => entry.id === 'openai')!;
    expect(platforms.find((p) => p.id === 'openai')).toEqual({
      ...openai, status: 'unsanctioned', note: '', overridden: [], catalog: true, updated_at: null,
    });
    expect(platforms.every((p) => p.catalog && p.status === 'unsanctioned')).toBe(true);
    expect(await list(t.adminToken)).toEqual(platforms);
  });

  it("adds the platforms of the tenant's interactions that the catalog lacks, their facts null or empty", async () => {
    const t = await h.tenant();
    await createInteraction(h, t, { platform_id: 'Acme-GPT' });
    await createInteraction(h, t, { platform_id: 'acme-gpt' });
    await createInteraction(h, t, { platform_id: 'openai' });
    const platforms = await list(t.adminToken);
    expect(platforms).toHaveLength(CATALOG.length + 1);
    expect(platforms.find((p) => p.id === 'acme-gpt')).toEqual({
      id: 'acme-gpt', name: null, vendor: null, category: null, domains: [], risk_tier: null, trains_on_inputs: null,
      data_regions: [], sources: [], status: 'unsanctioned', note: '', overridden: [], catalog: false, updated_at: null,
    });
    expect(platforms.map((p) => p.id)).toEqual([...platforms.map((p) => p.id)].sort());
  });

  it('sets a status with its note, audits the change (and its audit.entry event), and changes nothing when repeated', async () => {
    const t = await h.tenant();
    await subscribeToAudit(t);
    const response = await setStatus(t, 'deepseek', { status: 'blocked', note: 'Stored outside our approved regions' });
    expect(response.statusCode, response.body).toBe(200);
    const blocked = response.json();
    expect(blocked).toMatchObject({ id: 'deepseek', status: 'blocked', note: 'Stored outside our approved regions', catalog: true,
      name: 'DeepSeek Chat', overridden: [], updated_at: expect.any(String) });
    expect(await platformOf(t.adminToken, 'deepseek')).toEqual(blocked);

    const entries = [{ action: 'platform.updated', target_type: 'platform', target_id: 'deepseek', details: {
      status: { from: 'unsanctioned', to: 'blocked' }, note: { from: '', to: 'Stored outside our approved regions' },
    } }];
    expect(await auditOf(t.tenantId)).toEqual(entries);
    const events = await capturedEvents(h, t.tenantId, 'audit.entry');
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ ...entries[0], actor_id: t.adminId })]);

    // The same status again (the note left out keeps it): nothing written.
    expect((await setStatus(t, 'deepseek', { status: 'blocked' })).json()).toEqual(blocked);
    expect(await auditOf(t.tenantId)).toHaveLength(1);
    const sanctioned = await setStatus(t, 'deepseek', { status: 'sanctioned', note: '' });
    expect(sanctioned.json()).toMatchObject({ status: 'sanctioned', note: '' });
    expect((await auditOf(t.tenantId))[1]!.details).toEqual({
      status: { from: 'blocked', to: 'sanctioned' }, note: { from: 'Stored outside our approved regions', to: '' },
    });
  });

  it("overrides the catalog's name, category and risk tier for the tenant, and null gives the catalog's back", async () => {
    const t = await h.tenant();
    const response = await setStatus(t, 'notion-ai', { status: 'sanctioned', name: 'Notion (company workspace)',
      category: 'productivity', risk_tier: 'low' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ name: 'Notion (company workspace)', category: 'productivity', risk_tier: 'low',
      vendor: 'Notion Labs', overridden: ['name', 'category', 'risk_tier'] });
    // Left out: kept; null: the catalog's.
    const reset = await setStatus(t, 'notion-ai', { status: 'sanctioned', name: null });
    expect(reset.json()).toMatchObject({ name: 'Notion AI', risk_tier: 'low', overridden: ['category', 'risk_tier'] });
    expect((await auditOf(t.tenantId)).map((e) => Object.keys(e.details).sort()))
      .toEqual([['category', 'name', 'risk_tier', 'status'], ['name']]);
  });

  it('sets a status on a platform of its interactions that the catalog lacks, and names it for the tenant', async () => {
    const t = await h.tenant();
    await createInteraction(h, t, { platform_id: 'acme-gpt' });
    const response = await setStatus(t, 'ACME-GPT', { status: 'blocked', name: 'Acme GPT', category: 'assistant', risk_tier: 'high' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: 'acme-gpt', status: 'blocked', name: 'Acme GPT', category: 'assistant',
      risk_tier: 'high', vendor: null, catalog: false, overridden: ['name', 'category', 'risk_tier'] });
    expect(await platformOf(t.adminToken, 'acme-gpt')).toEqual(response.json());
  });

  it('answers 404 for a platform neither in the catalog nor in the tenant\'s interactions, and another tenant\'s', async () => {
    const t1 = await h.tenant();
    const t2 = await h.tenant();
    await createInteraction(h, t1, { platform_id: 'only-t1-app' });
    for (const id of ['never-seen-app', 'only-t1-app', 'not%20an%20id']) {
      const response = await setStatus(t2, id, { status: 'blocked' });
      expect(response.statusCode, id).toBe(404);
      expect(response.json()).toEqual({ error: 'Platform not found', code: 'not_found' });
    }
    expect(await h.db.selectFrom('platform_statuses').selectAll().where('tenant_id', '=', t2.tenantId).execute()).toEqual([]);
  });

  it("keeps each tenant's statuses and platforms to itself", async () => {
    const t1 = await h.tenant();
    const t2 = await h.tenant();
    await createInteraction(h, t1, { platform_id: 'secret-app' });
    expect((await setStatus(t1, 'openai', { status: 'blocked', note: 'ours' })).statusCode).toBe(200);
    expect((await setStatus(t1, 'secret-app', { status: 'sanctioned' })).statusCode).toBe(200);
    const seenByT2 = await list(t2.adminToken);
    expect(seenByT2.find((p) => p.id === 'openai')).toMatchObject({ status: 'unsanctioned', note: '' });
    expect(seenByT2.find((p) => p.id === 'secret-app')).toBeUndefined();
    expect((await platformOf(t1.adminToken, 'openai'))!.status).toBe('blocked');
  });

  it.each([
    ['no status', { note: 'x' }, 'body.status'],
    ['an unknown status', { status: 'allowed' }, 'body.status'],
    ['a status that is not a string', { status: 1 }, 'body.status'],
    ['a note that is not a string', { status: 'blocked', note: 42 }, 'body.note'],
    ['a note of 1,001 characters', { status: 'blocked', note: 'n'.repeat(1001) }, 'body.note'],
    ['a note with a NUL character', { status: 'blocked', note: 'a\u0000b' }, 'body.note'],
    ['an unknown category', { status: 'blocked', category: 'chatbot' }, 'body.category'],
    ['an unknown risk tier', { status: 'blocked', risk_tier: 'critical' }, 'body.risk_tier'],
    ['a blank name', { status: 'blocked', name: '  ' }, 'body.name'],
    ['a name with a NUL character', { status: 'blocked', name: 'a\u0000b' }, 'body.name'],
    ['a name of 201 characters', { status: 'blocked', name: 'n'.repeat(201) }, 'body.name'],
  ])('refuses %s: 400 naming the field, nothing stored', async (_name, body, path) => {
    const t = await h.tenant();
    const response = await setStatus(t, 'openai', body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation_error', error: expect.any(String),
      details: expect.arrayContaining([expect.objectContaining({ path })]) });
    expect(await h.db.selectFrom('platform_statuses').selectAll().where('tenant_id', '=', t.tenantId).execute()).toEqual([]);
  });

  it('refuses a platform id longer than 200 characters with 400', async () => {
    const t = await h.tenant();
    const response = await setStatus(t, 'a'.repeat(201), { status: 'blocked' });
    expect(response.statusCode).toBe(400);
    expect(response.json().details[0].path).toBe('params.platform_id');
  });

  it('lets only admins set a status, and signed-in users read: 401 without a token, 403 for viewers and API keys', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:write', 'interactions:read']);
    expect((await h.call('GET', '/api/v1/platforms')).statusCode).toBe(401);
    const anonymous = await h.call('PUT', '/api/v1/platforms/openai/status', { body: { status: 'blocked' } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('unauthorized');
    const byViewer = await setStatus(t, 'openai', { status: 'blocked' }, viewer.token);
    expect(byViewer.statusCode).toBe(403);
    expect(byViewer.json().code).toBe('forbidden');
    expect((await setStatus(t, 'openai', { status: 'blocked' }, key)).statusCode).toBe(403);
    expect((await h.call('GET', '/api/v1/platforms', { token: key })).statusCode).toBe(403);
    expect(await h.db.selectFrom('platform_statuses').selectAll().where('tenant_id', '=', t.tenantId).execute()).toEqual([]);
  });
});
