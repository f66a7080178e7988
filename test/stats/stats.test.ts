import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { classification, createInteraction, createPolicy } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const HOUR = 60 * 60 * 1000;

describe.each(STORES)('stats [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  it('counts interactions by platform, source, risk band and classification type, and open alerts by severity', async () => {
    const t = await h.tenant();
    await createPolicy(h, t, { name: 'cards', action: 'block', severity: 'critical', conditions: { classification_types: ['CREDIT_CARD'] } });
    await createPolicy(h, t, { name: 'risky', action: 'coach', severity: 'high', conditions: { min_risk_score: 0.8 } });
    const items = [
      { platform_id: 'openai', source: 'proxy', risk_score: 0, classifications: [classification('EMAIL'), classification('EMAIL')] },
      { platform_id: 'openai', source: 'proxy', risk_score: 0.19999 },
      { platform_id: 'claude', source: 'api', risk_score: 0.2, classifications: [classification('EMAIL'), classification('PHONE')] },
      { platform_id: 'openai', source: 'browser_extension', risk_score: 0.5, classifications: [classification('CREDIT_CARD')] },
      { platform_id: 'gemini', source: 'endpoint_agent', risk_score: 0.79 },
      { platform_id: 'claude', source: 'proxy', risk_score: 0.8, classifications: [classification('CREDIT_CARD')] },
      { platform_id: 'openai', source: 'api', risk_score: 1 },
    ];
    const created = [];
    for (const item of items) created.push(await createInteraction(h, t, item));
    const alerts = (await h.call('GET', '/api/v1/alerts', { token: t.adminToken, query: { policy_id: created[6].policy_decisions[0].policy_id } })).json().alerts;
    await h.call('POST', `/api/v1/alerts/${alerts[0].id}/resolve`, { token: t.adminToken });
    const other = await h.tenant('Other');
    await createInteraction(h, other, { platform_id: 'openai', classifications: [classification('EMAIL')] });

    const response = await h.call('GET', '/api/v1/stats', { token: t.adminToken });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      start_date: null,
      end_date: null,
      interactions: {
        total: 7,
        by_platform: [{ platform_id: 'openai', count: 4 }, { platform_id: 'claude', count: 2 }, { platform_id: 'gemini', count: 1 }],
        by_source: { browser_extension: 1, proxy: 3, endpoint_agent: 1, api: 2 },
        by_risk_band: [
          { band: '0-0.2', min: 0, max: 0.2, count: 2 },
          { band: '0.2-0.4', min: 0.2, max: 0.4, count: 1 },
          { band: '0.4-0.6', min: 0.4, max: 0.6, count: 1 },
          { band: '0.6-0.8', min: 0.6, max: 0.8, count: 1 },
          { band: '0.8-1', min: 0.8, max: 1, count: 2 },
        ],
        by_classification_type: [{ type: 'CREDIT_CARD', count: 2 }, { type: 'EMAIL', count: 2 }, { type: 'PHONE', count: 1 }],
      },
      // cards: 2 critical; risky: 2 high, one of which resolved.
      alerts: { open: 3, open_by_severity: { low: 0, medium: 0, high: 1, critical: 2 } },
      // No interval asked; no interaction names a user.
      series: null,
      top_users: [],
    });
  });

  it('counts only what was created within start_date and end_date (inclusive)', async () => {
    const t = await h.tenant();
    await createPolicy(h, t, { name: 'all', action: 'block', severity: 'low' });
    const stamps = [];
    try {
      for (const platform of ['a-old', 'b-mid', 'c-new']) {
        stamps.push((await createInteraction(h, t, { platform_id: platform, classifications: [classification(platform.toUpperCase())] })).timestamp);
        h.clock.advance(HOUR);
      }
    } finally {
      h.clock.reset();
    }
    const response = await h.call('GET', '/api/v1/stats', { token: t.adminToken, query: { start_date: stamps[1], end_date: stamps[2] } });
    const body = response.json();
    expect(body.start_date).toBe(stamps[1]);
    expect(body.interactions.total).toBe(2);
    expect(body.interactions.by_platform.map((p: { platform_id: string }) => p.platform_id).sort()).toEqual(['b-mid', 'c-new']);
    expect(body.interactions.by_classification_type.map((c: { type: string }) => c.type).sort()).toEqual(['B-MID', 'C-NEW']);
    expect(body.alerts.open_by_severity.low).toBe(2);
    const before = await h.call('GET', '/api/v1/stats', { token: t.adminToken, query: { end_date: '2000-01-01T00:00:00Z' } });
    expect(before.json().interactions.total).toBe(0);
    expect(before.json().interactions.by_risk_band.map((b: { count: number }) => b.count)).toEqual([0, 0, 0, 0, 0]);
  });

  it('answers an empty tenant with zeros', async () => {
    const t = await h.tenant();
    const body = (await h.call('GET', '/api/v1/stats', { token: t.adminToken })).json();
    expect(body.interactions).toMatchObject({ total: 0, by_platform: [], by_classification_type: [],
      by_source: { browser_extension: 0, proxy: 0, endpoint_agent: 0, api: 0 } });
    expect(body.alerts).toEqual({ open: 0, open_by_severity: { low: 0, medium: 0, high: 0, critical: 0 } });
  });

  it.each([
    ['a bad start_date', { start_date: 'last week' }],
    ['a bad end_date', { end_date: '2024-02-30T00:00:00Z' }],
    ['start_date after end_date', { start_date: '2024-02-01T00:00:00Z', end_date: '2024-01-01T00:00:00Z' }],
  ])('refuses %s with 400', async (_name, query) => {
    const t = await h.tenant();
    const response = await h.call('GET', '/api/v1/stats', { token: t.adminToken, query });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('validation_error');
  });

  it('is for admins and viewers; API keys and anonymous callers are refused', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:read']);
    expect((await h.call('GET', '/api/v1/stats', { token: viewer.token })).statusCode).toBe(200);
    expect((await h.call('GET', '/api/v1/stats', { token: key })).statusCode).toBe(403);
    expect((await h.call('GET', '/api/v1/stats')).statusCode).toBe(401);
  });
});
