import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, createInteraction, createPolicy, outboxEvents } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

interface Alert { id: string; interaction_id: string; policy_id: string; severity: string; status: string; created_at: string }

describe.each(STORES)('alerts [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  /** A tenant with three policies and four interactions a minute apart; returns its alerts newest first. */
  async function seed(t: TestTenant) {
    const cards = await createPolicy(h, t, { name: 'cards', action: 'block', severity: 'critical',
      conditions: { classification_types: ['CREDIT_CARD'] } });
    const risky = await createPolicy(h, t, { name: 'risky', action: 'coach', severity: 'high', conditions: { min_risk_score: 0.5 } });
    await createPolicy(h, t, { name: 'log', action: 'log', severity: 'critical' });
    const interactions = [];
    try {
      for (const body of [
        { classifications: [classification('CREDIT_CARD')] },
        { risk_score: 0.7 },
        { risk_score: 0.9, classifications: [classification('CREDIT_CARD')] },
        { risk_score: 0.1 },
      ]) {
        interactions.push(await createInteraction(h, t, body));
        h.clock.advance(60_000);
      }
    } finally {
      h.clock.reset();
    }
    const alerts = (await h.call('GET', '/api/v1/alerts', { token: t.adminToken })).json().alerts as Alert[];
    return { cards, risky, interactions, alerts };
  }

  it('lists the raised alerts newest first with the alert fields and pagination headers', async () => {
    const t = await h.tenant();
    const { cards, risky, interactions, alerts } = await seed(t);
    expect(alerts).toHaveLength(4);
    expect(alerts.map((a) => [a.interaction_id, a.policy_id]).slice(0, 2).sort()).toEqual(
      [[interactions[2].id, cards.id], [interactions[2].id, risky.id]].sort());
    expect(alerts.slice(2).map((a) => [a.interaction_id, a.policy_id])).toEqual([
      [interactions[1].id, risky.id], [interactions[0].id, cards.id],
    ]);
    expect(alerts[3]).toEqual({
      id: expect.any(String), interaction_id: interactions[0].id, policy_id: cards.id, policy_name: 'cards',
      severity: 'critical', status: 'open', created_at: interactions[0].timestamp, resolved_at: null, resolved_by: null,
    });
    const paged = await h.call('GET', '/api/v1/alerts', { token: t.adminToken, query: { limit: 3, page: 2 } });
    expect(paged.json()).toEqual({ alerts: [alerts[3]], total: 4, next_cursor: null });
    expect(paged.headers).toMatchObject({ 'x-total-count': '4', 'x-page': '2', 'x-per-page': '3', 'x-total-pages': '2' });
    const past = await h.call('GET', '/api/v1/alerts', { token: t.adminToken, query: { limit: 3, page: 3 } });
    expect(past.json()).toEqual({ alerts: [], total: 4, next_cursor: null });
  });

  it('filters by status, severity, policy_id, interaction_id and dates, alone and combined', async () => {
    const t = await h.tenant();
    const { cards, risky, interactions, alerts } = await seed(t);
    await h.call('POST', `/api/v1/alerts/${alerts[3]!.id}/resolve`, { token: t.adminToken });
    const ids = async (query: Record<string, string>) =>
      ((await h.call('GET', '/api/v1/alerts', { token: t.adminToken, query })).json().alerts as Alert[]).map((a) => a.id);
    const expectIds = (want: Alert[]) => want.map((a) => a.id);
    expect(await ids({ status: 'resolved' })).toEqual([alerts[3]!.id]);
    expect(await ids({ status: 'open' })).toEqual(expectIds(alerts.slice(0, 3)));
    expect(await ids({ severity: 'high' })).toEqual(expectIds(alerts.filter((a) => a.policy_id === risky.id)));
    expect(await ids({ severity: 'low' })).toEqual([]);
    expect(await ids({ policy_id: cards.id })).toEqual(expectIds(alerts.filter((a) => a.policy_id === cards.id)));
    expect(await ids({ interaction_id: interactions[2].id })).toEqual(expectIds(alerts.slice(0, 2)));
    expect(await ids({ start_date: interactions[1].timestamp })).toEqual(expectIds(alerts.slice(0, 3)));
    expect(await ids({ end_date: interactions[1].timestamp })).toEqual(expectIds(alerts.slice(2)));
    expect(await ids({ status: 'open', severity: 'critical', policy_id: cards.id, start_date: interactions[0].timestamp }))
      .toEqual(expectIds(alerts.filter((a) => a.policy_id === cards.id && a.interaction_id === interactions[2].id)));
  });

  it.each([
    ['an unknown status', { status: 'closed' }], ['an unknown severity', { severity: 'urgent' }],
    ['a policy_id that is not a UUID', { policy_id: 'p1' }], ['limit 501', { limit: 501 }], ['page 0', { page: 0 }],
    ['a bad start_date', { start_date: 'today' }],
    ['start_date after end_date', { start_date: '2024-02-01T00:00:00Z', end_date: '2024-01-01T00:00:00Z' }],
  ])('refuses a list with %s: 400', async (_name, query) => {
    const t = await h.tenant();
    const response = await h.call('GET', '/api/v1/alerts', { token: t.adminToken, query });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('validation_error');
  });

  it('gets an alert; 404 for unknown, malformed and other tenants\' ids', async () => {
    const t = await h.tenant();
    const { alerts } = await seed(t);
    const viewer = await h.user(t, 'viewer');
    expect((await h.call('GET', `/api/v1/alerts/${alerts[0]!.id}`, { token: viewer.token })).json()).toEqual(alerts[0]);
    const other = await h.tenant('Other');
    for (const id of [alerts[0]!.id, crypto.randomUUID(), 'nope']) {
      expect((await h.call('GET', `/api/v1/alerts/${id}`, { token: other.adminToken })).statusCode).toBe(404);
      expect((await h.call('POST', `/api/v1/alerts/${id}/resolve`, { token: other.adminToken })).statusCode).toBe(404);
    }
    expect((await h.call('GET', `/api/v1/alerts/${alerts[0]!.id}`, { token: t.adminToken })).json().status).toBe('open');
  });

  it('resolves an open alert once: alert.resolved emitted and audited; a second resolve is 409 invalid_state', async () => {
    const t = await h.tenant();
    const { alerts } = await seed(t);
    const response = await h.call('POST', `/api/v1/alerts/${alerts[0]!.id}/resolve`, { token: t.adminToken });
    expect(response.statusCode).toBe(200);
    const resolved = response.json();
    expect(resolved).toEqual({ ...alerts[0], status: 'resolved', resolved_at: expect.any(String), resolved_by: t.adminId });
    expect((await h.call('GET', `/api/v1/alerts/${alerts[0]!.id}`, { token: t.adminToken })).json()).toEqual(resolved);
    expect((await outboxEvents(h, t.tenantId, 'alert.resolved')).map((e) => e.data)).toEqual([resolved]);
    const audit = await h.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'alert.resolved').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: t.adminId, target_type: 'alert', target_id: alerts[0]!.id });

    const again = await h.call('POST', `/api/v1/alerts/${alerts[0]!.id}/resolve`, { token: t.adminToken });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('invalid_state');
    expect(await outboxEvents(h, t.tenantId, 'alert.resolved')).toHaveLength(1);
  });

  it('lets admins and viewers read alerts and only admins resolve them; API keys get nothing', async () => {
    const t = await h.tenant();
    const { alerts } = await seed(t);
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:read', 'interactions:write']);
    expect((await h.call('GET', '/api/v1/alerts', { token: viewer.token })).json().total).toBe(4);
    expect((await h.call('GET', '/api/v1/alerts', { token: key })).statusCode).toBe(403);
    expect((await h.call('GET', `/api/v1/alerts/${alerts[0]!.id}`, { token: key })).statusCode).toBe(403);
    expect((await h.call('GET', '/api/v1/alerts')).statusCode).toBe(401);
    const resolve = (token?: string) => h.call('POST', `/api/v1/alerts/${alerts[0]!.id}/resolve`, { token });
    expect((await resolve(viewer.token)).statusCode).toBe(403);
    expect((await resolve(key)).statusCode).toBe(403);
    expect((await resolve()).statusCode).toBe(401);
    expect((await h.call('GET', `/api/v1/alerts/${alerts[0]!.id}`, { token: t.adminToken })).json().status).toBe('open');
    expect(await outboxEvents(h, t.tenantId, 'alert.resolved')).toEqual([]);
  });
});
