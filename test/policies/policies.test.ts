import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { countRows, createInteraction, createPolicy, outboxEvents } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const auditActions = async (h: Harness, tenantId: string) =>
  (await h.db.selectFrom('audit_log').select(['action', 'target_id', 'details']).where('tenant_id', '=', tenantId)
    .where('action', 'like', 'policy.%').orderBy('occurred_at').orderBy('id').execute());

describe.each(STORES)('policies [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  it('creates a policy with defaults, emits policy.created and audits it', async () => {
    const t = await h.tenant();
    const response = await h.call('POST', '/api/v1/policies', { token: t.adminToken, body: { name: 'Log everything', action: 'log' } });
    expect(response.statusCode).toBe(201);
    const policy = response.json();
    expect(policy).toEqual({
      id: expect.any(String), name: 'Log everything', description: '', action: 'log', severity: 'medium', enabled: true,
      conditions: {}, message: null, created_at: expect.any(String), updated_at: policy.created_at,
    });
    expect(await outboxEvents(h, t.tenantId)).toEqual([{ type: 'policy.created', data: policy }]);
    expect(await auditActions(h, t.tenantId)).toEqual([
      { action: 'policy.created', target_id: policy.id, details: { name: 'Log everything', action: 'log' } },
    ]);
  });

  it('stores every condition, platform ids normalised and duplicates dropped', async () => {
    const t = await h.tenant();
    const conditions = {
      platform_ids: [' OpenAI ', 'openai', 'claude'], classification_types: ['EMAIL', 'IBAN'], min_risk_score: 0.7,
      directions: ['outbound'], sources: ['proxy', 'api'], interaction_types: ['prompt', 'prompt'],
    };
    const policy = await createPolicy(h, t, { name: 'strict', description: 'd', action: 'block', severity: 'critical',
      enabled: false, conditions });
    expect(policy).toMatchObject({ description: 'd', action: 'block', severity: 'critical', enabled: false, conditions: {
      platform_ids: ['openai', 'claude'], classification_types: ['EMAIL', 'IBAN'], min_risk_score: 0.7,
      directions: ['outbound'], sources: ['proxy', 'api'], interaction_types: ['prompt'],
    } });
    expect((await h.call('GET', `/api/v1/policies/${policy.id}`, { token: t.adminToken })).json()).toEqual(policy);
  });

  it.each([
    ['no name', { action: 'log' }],
    ['a blank name', { name: '   ', action: 'log' }],
    ['a name of 201 characters', { name: 'n'.repeat(201), action: 'log' }],
    ['no action', { name: 'p' }],
    ['an unknown action', { name: 'p', action: 'warn' }],
    ['an unknown severity', { name: 'p', action: 'log', severity: 'urgent' }],
    ['enabled as a string', { name: 'p', action: 'log', enabled: 'true' }],
    ['conditions not an object', { name: 'p', action: 'log', conditions: ['openai'] }],
    ['an unknown condition (a typo must not match everything)', { name: 'p', action: 'log', conditions: { platform_id: ['openai'] } }],
    ['an empty condition list', { name: 'p', action: 'log', conditions: { platform_ids: [] } }],
    ['an invalid platform id', { name: 'p', action: 'log', conditions: { platform_ids: ['open ai'] } }],
    ['min_risk_score above 1', { name: 'p', action: 'log', conditions: { min_risk_score: 1.5 } }],
    ['an unknown direction', { name: 'p', action: 'log', conditions: { directions: ['up'] } }],
    ['an unknown source', { name: 'p', action: 'log', conditions: { sources: ['email'] } }],
    ['an unknown interaction type', { name: 'p', action: 'log', conditions: { interaction_types: ['chat'] } }],
    ['a classification type that is not a string', { name: 'p', action: 'log', conditions: { classification_types: [1] } }],
    ['an unknown platform status', { name: 'p', action: 'log', conditions: { platform_statuses: ['allowed'] } }],
    ['an empty platform status list', { name: 'p', action: 'log', conditions: { platform_statuses: [] } }],
    ['a message of 501 characters', { name: 'p', action: 'coach', message: 'm'.repeat(501) }],
    ['an empty message', { name: 'p', action: 'coach', message: '' }],
    ['a message that is not a string', { name: 'p', action: 'coach', message: 1 }],
  ])('refuses a policy with %s: 400, nothing stored', async (_name, body) => {
    const t = await h.tenant();
    const response = await h.call('POST', '/api/v1/policies', { token: t.adminToken, body });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().code).toBe('validation_error');
    expect(await h.db.selectFrom('policies').selectAll().where('tenant_id', '=', t.tenantId).execute()).toEqual([]);
    expect(await countRows(h, 'webhook_messages', t.tenantId)).toBe(0);
  });

  it('lists policies oldest first with filters and pagination headers, for admins and viewers', async () => {
    const t = await h.tenant();
    const a = await createPolicy(h, t, { name: 'a', action: 'block' });
    const b = await createPolicy(h, t, { name: 'b', action: 'log', enabled: false });
    const c = await createPolicy(h, t, { name: 'c', action: 'log' });
    const viewer = await h.user(t, 'viewer');
    const all = await h.call('GET', '/api/v1/policies', { token: viewer.token });
    expect(all.json()).toEqual({ policies: [a, b, c], total: 3, next_cursor: null });
    expect(all.headers).toMatchObject({ 'x-total-count': '3', 'x-page': '1', 'x-per-page': '50', 'x-total-pages': '1' });
    const page2 = await h.call('GET', '/api/v1/policies', { token: t.adminToken, query: { limit: 2, page: 2 } });
    expect(page2.json()).toEqual({ policies: [c], total: 3, next_cursor: null });
    expect(page2.headers['x-total-pages']).toBe('2');
    const logs = await h.call('GET', '/api/v1/policies', { token: t.adminToken, query: { action: 'log', enabled: true } });
    expect(logs.json()).toEqual({ policies: [c], total: 1, next_cursor: null });
    const disabled = await h.call('GET', '/api/v1/policies', { token: t.adminToken, query: { enabled: false } });
    expect(disabled.json().policies.map((p: { id: string }) => p.id)).toEqual([b.id]);
    for (const query of [{ limit: 501 }, { page: 0 }, { action: 'warn' }, { enabled: 'maybe' }] as Array<Record<string, string | number>>) {
      expect((await h.call('GET', '/api/v1/policies', { token: t.adminToken, query })).statusCode).toBe(400);
    }
  });

  it('stores a message and the platform_statuses condition; an update replaces the message, null removes it', async () => {
    const t = await h.tenant();
    const policy = await createPolicy(h, t, { name: 'unsanctioned apps', action: 'coach', message: 'Ask IT before using this app.',
      conditions: { platform_statuses: ['unsanctioned', 'blocked', 'unsanctioned'] } });
    expect(policy).toMatchObject({ message: 'Ask IT before using this app.', conditions: { platform_statuses: ['unsanctioned', 'blocked'] } });
    expect((await h.call('GET', `/api/v1/policies/${policy.id}`, { token: t.adminToken })).json()).toEqual(policy);
    const changed = await h.call('PUT', `/api/v1/policies/${policy.id}`, { token: t.adminToken, body: { message: 'm'.repeat(500) } });
    expect(changed.json().message).toBe('m'.repeat(500));
    const removed = await h.call('PUT', `/api/v1/policies/${policy.id}`, { token: t.adminToken, body: { message: null } });
    expect(removed.json().message).toBeNull();
    expect((await auditActions(h, t.tenantId)).slice(1).map((entry) => entry.details)).toEqual([
      { name: 'unsanctioned apps', changed: ['message'] }, { name: 'unsanctioned apps', changed: ['message'] },
    ]);
    expect((await outboxEvents(h, t.tenantId, 'policy.updated')).at(-1)!.data).toEqual(removed.json());
  });

  it('updates only the fields given, replaces conditions whole, emits policy.updated and audits the changed fields', async () => {
    const t = await h.tenant();
    const policy = await createPolicy(h, t, { name: 'p', action: 'log', conditions: { platform_ids: ['openai'], min_risk_score: 0.5 } });
    h.clock.advance(1000);
    try {
      const response = await h.call('PUT', `/api/v1/policies/${policy.id}`, {
        token: t.adminToken, body: { action: 'coach', conditions: { sources: ['proxy'] } },
      });
      expect(response.statusCode).toBe(200);
      const updated = response.json();
      expect(updated).toEqual({ ...policy, action: 'coach', conditions: { sources: ['proxy'] }, updated_at: expect.any(String) });
      expect(updated.updated_at > policy.updated_at).toBe(true);
      expect((await outboxEvents(h, t.tenantId, 'policy.updated')).map((e) => e.data)).toEqual([updated]);
      expect((await auditActions(h, t.tenantId)).at(-1)).toEqual({
        action: 'policy.updated', target_id: policy.id, details: { name: 'p', changed: ['action', 'conditions'] },
      });
    } finally {
      h.clock.reset();
    }
  });

  it('refuses an invalid update with 400 and changes nothing', async () => {
    const t = await h.tenant();
    const policy = await createPolicy(h, t, { name: 'p', action: 'log' });
    for (const body of [{ action: 'warn' }, { name: '' }, { severity: 'urgent' }, { enabled: 1 },
      { conditions: { min_risk_score: -1 } }, { conditions: { platform: ['openai'] } }, { conditions: { platform_ids: ['-x'] } },
      { message: 'm'.repeat(501) }, { message: '' }, { conditions: { platform_statuses: ['tolerated'] } }]) {
      const response = await h.call('PUT', `/api/v1/policies/${policy.id}`, { token: t.adminToken, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('validation_error');
    }
    expect((await h.call('GET', `/api/v1/policies/${policy.id}`, { token: t.adminToken })).json()).toEqual(policy);
    expect((await outboxEvents(h, t.tenantId)).map((e) => e.type)).toEqual(['policy.created']);
  });

  it('treats an update that changes nothing as a no-op: no event, no audit entry', async () => {
    const t = await h.tenant();
    const conditions = { platform_ids: ['openai'], min_risk_score: 0.5, sources: ['proxy'], classification_types: ['EMAIL'] };
    const policy = await createPolicy(h, t, { name: 'p', action: 'log', conditions });
    const response = await h.call('PUT', `/api/v1/policies/${policy.id}`, {
      token: t.adminToken, body: { name: 'p', conditions: Object.fromEntries(Object.entries(conditions).reverse()) },
    });
    expect(response.json()).toEqual(policy);
    expect((await outboxEvents(h, t.tenantId)).map((e) => e.type)).toEqual(['policy.created']);
  });

  it('emits policy.disabled / policy.enabled (also after policy.updated when PUT flips enabled)', async () => {
    const t = await h.tenant();
    const policy = await createPolicy(h, t, { name: 'p', action: 'log' });
    const disabled = await h.call('POST', `/api/v1/policies/${policy.id}/disable`, { token: t.adminToken });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json().enabled).toBe(false);
    const again = await h.call('POST', `/api/v1/policies/${policy.id}/disable`, { token: t.adminToken });
    expect(again.json()).toEqual(disabled.json());
    const enabled = await h.call('POST', `/api/v1/policies/${policy.id}/enable`, { token: t.adminToken });
    expect(enabled.json().enabled).toBe(true);
    const put = await h.call('PUT', `/api/v1/policies/${policy.id}`, { token: t.adminToken, body: { enabled: false, name: 'q' } });
    expect(put.json()).toMatchObject({ enabled: false, name: 'q' });
    const events = await outboxEvents(h, t.tenantId);
    expect(events.map((e) => e.type).sort()).toEqual(
      ['policy.created', 'policy.disabled', 'policy.disabled', 'policy.enabled', 'policy.updated'].sort());
    expect(events.find((e) => e.type === 'policy.enabled')!.data).toEqual(enabled.json());
    expect((await auditActions(h, t.tenantId)).map((a) => a.action).sort()).toEqual(
      ['policy.created', 'policy.disabled', 'policy.enabled', 'policy.updated'].sort());
  });

  it('deletes a policy: 204, policy.deleted with its id, audited, 404 afterwards, its alerts kept', async () => {
    const t = await h.tenant();
    const policy = await createPolicy(h, t, { name: 'gone', action: 'block' });
    await createInteraction(h, t);
    const response = await h.call('DELETE', `/api/v1/policies/${policy.id}`, { token: t.adminToken });
    expect(response.statusCode).toBe(204);
    expect((await h.call('GET', `/api/v1/policies/${policy.id}`, { token: t.adminToken })).statusCode).toBe(404);
    expect((await h.call('DELETE', `/api/v1/policies/${policy.id}`, { token: t.adminToken })).statusCode).toBe(404);
    expect((await outboxEvents(h, t.tenantId, 'policy.deleted')).map((e) => e.data)).toEqual([{ id: policy.id }]);
    expect((await auditActions(h, t.tenantId)).at(-1)).toEqual({ action: 'policy.deleted', target_id: policy.id, details: { name: 'gone' } });
    expect(await countRows(h, 'alerts', t.tenantId)).toBe(1);
  });

  it('answers 404 for unknown, malformed and other tenants\' policy ids on every route', async () => {
    const t = await h.tenant();
    const other = await h.tenant('Other');
    const theirs = await createPolicy(h, other, { name: 'theirs', action: 'log' });
    for (const id of [theirs.id, crypto.randomUUID(), 'not-a-uuid']) {
      for (const [method, path, body] of [
        ['GET', '', undefined], ['PUT', '', { name: 'x' }], ['DELETE', '', undefined],
        ['POST', '/enable', undefined], ['POST', '/disable', undefined],
      ] as const) {
        const response = await h.call(method, `/api/v1/policies/${id}${path}`, { token: t.adminToken, body });
        expect(response.statusCode, `${method} ${id}${path}`).toBe(404);
      }
    }
    expect((await h.call('GET', `/api/v1/policies/${theirs.id}`, { token: other.adminToken })).json()).toEqual(theirs);
  });

  it('lets viewers read but not write; API keys and anonymous callers get nothing', async () => {
    const t = await h.tenant();
    const policy = await createPolicy(h, t, { name: 'p', action: 'log' });
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:read', 'interactions:write']);
    expect((await h.call('GET', `/api/v1/policies/${policy.id}`, { token: viewer.token })).statusCode).toBe(200);
    const writes = [
      ['POST', '/api/v1/policies', { name: 'x', action: 'log' }], ['PUT', `/api/v1/policies/${policy.id}`, { name: 'x' }],
      ['DELETE', `/api/v1/policies/${policy.id}`, undefined], ['POST', `/api/v1/policies/${policy.id}/disable`, undefined],
      ['POST', `/api/v1/policies/${policy.id}/enable`, undefined],
    ] as const;
    for (const [method, url, body] of writes) {
      expect((await h.call(method, url, { token: viewer.token, body })).statusCode, `${method} ${url}`).toBe(403);
      expect((await h.call(method, url, { token: key, body })).statusCode, `${method} ${url}`).toBe(403);
      expect((await h.call(method, url, { body })).statusCode, `${method} ${url}`).toBe(401);
    }
    expect((await h.call('GET', '/api/v1/policies', { token: key })).statusCode).toBe(403);
    expect((await h.call('GET', `/api/v1/policies/${policy.id}`, { token: key })).statusCode).toBe(403);
    expect((await h.call('GET', '/api/v1/policies')).statusCode).toBe(401);
    expect((await h.call('GET', `/api/v1/policies/${policy.id}`, { token: t.adminToken })).json()).toEqual(policy);
    expect((await outboxEvents(h, t.tenantId)).map((e) => e.type)).toEqual(['policy.created']);
  });

  it('applies every change to the very next create', async () => {
    const t = await h.tenant();
    const decisions = async (body: Record<string, unknown> = {}) =>
      (await createInteraction(h, t, body)).policy_decisions.map((d: { policy_name: string }) => d.policy_name);
    expect(await decisions()).toEqual([]);
    const policy = await createPolicy(h, t, { name: 'p', action: 'coach' });
    expect(await decisions()).toEqual(['p']);
    await h.call('POST', `/api/v1/policies/${policy.id}/disable`, { token: t.adminToken });
    expect(await decisions()).toEqual([]);
    await h.call('POST', `/api/v1/policies/${policy.id}/enable`, { token: t.adminToken });
    expect(await decisions()).toEqual(['p']);
    await h.call('PUT', `/api/v1/policies/${policy.id}`, { token: t.adminToken, body: { name: 'q', conditions: { platform_ids: ['claude'] } } });
    expect(await decisions()).toEqual([]);
    expect(await decisions({ platform_id: 'Claude' })).toEqual(['q']);
    await h.call('DELETE', `/api/v1/policies/${policy.id}`, { token: t.adminToken });
    expect(await decisions({ platform_id: 'claude' })).toEqual([]);
  });
});
