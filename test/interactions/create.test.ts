import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import {
  classification, countRows, createPolicy, interactionBody, INVALID_BODIES, outboxEvents, randomHash,
} from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('create interaction [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  it('stores an interaction with the defaults and returns it with server-set fields', async () => {
    const t = await h.tenant();
    const hash = randomHash();
    const response = await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken, body: { platform_id: 'openai', content_hash: hash },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenant_id: t.tenantId,
      timestamp: expect.any(String),
      platform_id: 'openai',
      content_hash: hash,
      interaction_type: 'prompt',
      content_metadata: {},
      classifications: [],
      risk_score: 0,
      direction: 'outbound',
      source: 'browser_extension',
      user_id: null,
      policy_decisions: [],
    });
    expect(Math.abs(new Date(body.timestamp).getTime() - Date.now())).toBeLessThan(60_000);
    const stored = await h.call('GET', `/api/v1/interactions/${body.id}`, { token: t.adminToken });
    expect(stored.json()).toEqual(body);
  });

  it('stores every field as given, normalised: platform_id trimmed and lowercased, hash and user_id lowercased', async () => {
    const t = await h.tenant();
    const hash = randomHash();
    const userId = crypto.randomUUID();
    const response = await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken,
      body: {
        platform_id: '  OpenAI.Chat_GPT-4 ',
        content_hash: hash.toUpperCase(),
        interaction_type: 'tool_call',
        content_metadata: { url: 'https://chat.openai.com', model: 'gpt-4', nested: { list: [1, 'two', null, true] } },
        classifications: [classification('EMAIL', { start: 3, end: 3, score: 1 }), classification('IBAN', { score: 0 })],
        risk_score: 1,
        direction: 'inbound',
        source: 'endpoint_agent',
        user_id: userId.toUpperCase(),
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      platform_id: 'openai.chat_gpt-4',
      content_hash: hash,
      interaction_type: 'tool_call',
      content_metadata: { url: 'https://chat.openai.com', model: 'gpt-4', nested: { list: [1, 'two', null, true] } },
      classifications: [classification('EMAIL', { start: 3, end: 3, score: 1 }), classification('IBAN', { score: 0 })],
      risk_score: 1,
      direction: 'inbound',
      source: 'endpoint_agent',
      user_id: userId.toLowerCase(),
    });
    const row = await h.db.selectFrom('interactions').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ platform_id: 'openai.chat_gpt-4', content_hash: hash, user_id: userId.toLowerCase(), risk_score: 1 });
    const types = await h.db.selectFrom('interaction_classification_types').select('classification_type')
      .where('interaction_id', '=', body.id).orderBy('classification_type').execute();
    expect(types.map((r) => r.classification_type)).toEqual(['EMAIL', 'IBAN']);
    expect((await h.call('GET', `/api/v1/interactions/${body.id}`, { token: t.adminToken })).json()).toEqual(body);
  });

  it('accepts the limits: a 100-character platform_id, 1000 classifications, 64 KiB of metadata', async () => {
    const t = await h.tenant();
    const response = await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken,
      body: interactionBody({
        platform_id: 'a'.repeat(100),
        classifications: Array.from({ length: 1000 }, (_, i) => classification(`T${i % 10}`)),
        content_metadata: { snippet: 'x'.repeat(60 * 1024) },
      }),
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().classifications).toHaveLength(1000);
  });

  it('ignores server-set and unknown fields, also inside classifications', async () => {
    const t = await h.tenant();
    const other = await h.tenant('Other');
    const response = await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken,
      body: interactionBody({
        id: '00000000-0000-4000-8000-000000000000',
        tenant_id: other.tenantId,
        timestamp: '2001-01-01T00:00:00Z',
        policy_decisions: [{ policy_id: '00000000-0000-4000-8000-000000000001', policy_name: 'fake', action: 'block' }],
        unknown_field: 'ignored',
        classifications: [{ ...classification('EMAIL'), confidence: 'high', validated: true, fingerprint: 'fp_chosen-by-client' }],
      }),
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.id).not.toBe('00000000-0000-4000-8000-000000000000');
    expect(body.tenant_id).toBe(t.tenantId);
    expect(body.timestamp.startsWith('2001')).toBe(false);
    expect(body.policy_decisions).toEqual([]);
    expect(body).not.toHaveProperty('unknown_field');
    // The service's verdict and fingerprint, not the client's.
    expect(body.classifications).toEqual([{ ...classification('EMAIL'), validated: false, fingerprint: expect.stringMatching(/^fp_[\w-]{43}$/) }]);
    expect(await countRows(h, 'interactions', other.tenantId)).toBe(0);
  });

  it.each(INVALID_BODIES)('refuses %s with 400 validation_error and stores nothing', async (_name, overrides) => {
    const t = await h.tenant();
    await createPolicy(h, t, { name: 'everything', action: 'block' });
    const eventsBefore = await countRows(h, 'webhook_messages', t.tenantId);
    const response = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody(overrides) });
    expect(response.statusCode, response.body).toBe(400);
    const body = response.json();
    expect(body.code).toBe('validation_error');
    expect(body.details[0].path).toMatch(/^body/);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(0);
    expect(await countRows(h, 'alerts', t.tenantId)).toBe(0);
    expect(await countRows(h, 'webhook_messages', t.tenantId)).toBe(eventsBefore);
  });

  it('refuses a body that is not an object, or not JSON', async () => {
    const t = await h.tenant();
    for (const body of [[interactionBody()], 'openai', 42, null]) {
      const response = await h.call('POST', '/api/v1/interactions', {
        token: t.adminToken, body: JSON.stringify(body), headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('validation_error');
    }
    const text = await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken, body: 'platform_id=openai', headers: { 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(415);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(0);
  });

  it('emits interaction.created with the interaction, decisions without matched_conditions', async () => {
    const t = await h.tenant();
    const policy = await createPolicy(h, t, { name: 'log all', action: 'log' });
    const created = (await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken, body: interactionBody({ risk_score: 0.5 }),
    })).json();
    expect(created.policy_decisions).toEqual([
      { policy_id: policy.id, policy_name: 'log all', action: 'log', matched_conditions: 0 },
    ]);
    const { policy_decisions: decisions, ...rest } = created;
    const expectedData = { ...rest, policy_decisions: [{ policy_id: policy.id, policy_name: 'log all', action: 'log' }] };
    const events = (await outboxEvents(h, t.tenantId)).filter((e) => e.type.startsWith('interaction.'));
    expect(events.map((e) => e.type).sort()).toEqual(['interaction.created', 'interaction.policy_violated']);
    for (const event of events) expect(event.data).toEqual(expectedData);
    const row = await h.db.selectFrom('interactions').select('policy_decisions').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.policy_decisions).toEqual(decisions);
    expect(await countRows(h, 'alerts', t.tenantId)).toBe(0);
  });

  it('emits only interaction.created when no policy matches and the risk is below 0.8', async () => {
    const t = await h.tenant();
    await createPolicy(h, t, { name: 'claude only', action: 'block', conditions: { platform_ids: ['claude'] } });
    await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody({ risk_score: 0.79 }) });
    const types = (await outboxEvents(h, t.tenantId)).map((e) => e.type).filter((type) => type.startsWith('interaction.'));
    expect(types).toEqual(['interaction.created']);
  });

  it('emits interaction.high_risk from a risk score of 0.8', async () => {
    const t = await h.tenant();
    const created = (await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken, body: interactionBody({ risk_score: 0.8 }),
    })).json();
    const highRisk = await outboxEvents(h, t.tenantId, 'interaction.high_risk');
    expect(highRisk).toHaveLength(1);
    expect(highRisk[0]!.data).toEqual(created);
  });

  it('raises one alert per matching block or coach policy, none for log, with the alert events', async () => {
    const t = await h.tenant();
    const block = await createPolicy(h, t, { name: 'block cards', action: 'block', severity: 'critical',
      conditions: { classification_types: ['CREDIT_CARD'] } });
    const coach = await createPolicy(h, t, { name: 'coach risky', action: 'coach', severity: 'high',
      conditions: { min_risk_score: 0.5 } });
    const coachLow = await createPolicy(h, t, { name: 'coach all', action: 'coach', severity: 'low' });
    await createPolicy(h, t, { name: 'log all', action: 'log', severity: 'critical' });
    const created = (await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken, body: interactionBody({ risk_score: 0.6, classifications: [classification('CREDIT_CARD')] }),
    })).json();
    expect(created.policy_decisions.map((d: { policy_name: string }) => d.policy_name))
      .toEqual(['block cards', 'coach all', 'coach risky', 'log all']);

    const alerts = await h.db.selectFrom('alerts').selectAll().where('tenant_id', '=', t.tenantId).execute();
    expect(alerts.map((a) => [a.policy_id, a.severity, a.status, a.interaction_id]).sort()).toEqual([
      [block.id, 'critical', 'open', created.id],
      [coach.id, 'high', 'open', created.id],
      [coachLow.id, 'low', 'open', created.id],
    ].sort());
    const alertCreated = await outboxEvents(h, t.tenantId, 'alert.created');
    expect(alertCreated.map((e) => e.data.policy_name).sort()).toEqual(['block cards', 'coach all', 'coach risky']);
    const critical = await outboxEvents(h, t.tenantId, 'alert.severity_critical');
    expect(critical.map((e) => e.data)).toEqual([expect.objectContaining({
      policy_id: block.id, policy_name: 'block cards', severity: 'critical', status: 'open', interaction_id: created.id,
      resolved_at: null, resolved_by: null,
    })]);
    const high = await outboxEvents(h, t.tenantId, 'alert.severity_high');
    expect(high.map((e) => e.data.policy_id)).toEqual([coach.id]);
    const listed = (await h.call('GET', '/api/v1/alerts', { token: t.adminToken, query: { severity: 'critical' } })).json();
    expect(listed.alerts[0]).toEqual(critical[0]!.data);
  });

  it('admits admins and API keys with interactions:write; refuses viewers, read-only keys and anonymous callers', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const writeKey = await h.apiKey(t, ['interactions:write']);
    const readKey = await h.apiKey(t, ['interactions:read']);
    const post = (token: string | undefined) => h.call('POST', '/api/v1/interactions', { token, body: interactionBody() });
    expect((await post(t.adminToken)).statusCode).toBe(201);
    expect((await post(writeKey)).statusCode).toBe(201);
    const refusedViewer = await post(viewer.token);
    expect(refusedViewer.statusCode).toBe(403);
    expect(refusedViewer.json().code).toBe('forbidden');
    expect((await post(readKey)).statusCode).toBe(403);
    const anonymous = await post(undefined);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('unauthorized');
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(2);
  });
});
