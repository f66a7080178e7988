import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matches } from '../../src/modules/policies/policies.evaluate.js';
import type { PolicyConditions } from '../../src/kernel/tables/interactions.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const PLATFORMS = ['chatgpt', 'claude', 'mistral'];
const TYPES = ['CREDIT_CARD', 'EMAIL', 'PHONE'];
const RANK = { block: 0, coach: 1, log: 2 } as const;
const MAX_ROWS = 150; // of the 210 interactions stored

type Action = keyof typeof RANK;
interface Stored {
  id: string; timestamp: string; platform_id: string; risk_score: number; direction: 'outbound' | 'inbound';
  source: 'browser_extension' | 'proxy' | 'endpoint_agent' | 'api'; interaction_type: 'prompt' | 'completion' | 'tool_call' | 'embedding';
  classifications: Array<{ type: string; validated?: boolean }>; policy_decisions: Array<{ policy_id: string; action: Action }>;
}

describe.each(STORES)('policy dry-run [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let stored: Stored[];

  beforeAll(async () => {
    h = await Harness.start(kind, { env: { POLICY_DRY_RUN_MAX_ROWS: String(MAX_ROWS) } });
    t = await h.tenant('Dry');
    await createPolicy(h, t, { name: 'claude coach', action: 'coach', severity: 'low', conditions: { platform_ids: ['claude'] } });
    await createPolicy(h, t, { name: 'risky block', action: 'block', severity: 'high', conditions: { min_risk_score: 0.9 } });
    for (let round = 0; round < 3; round += 1) {
      const items = Array.from({ length: 70 }, (_, i) => interactionBody({
        platform_id: PLATFORMS[(i + round) % 3], risk_score: ((i * 7) % 11) / 10, direction: i % 4 === 0 ? 'inbound' : 'outbound',
        source: ['browser_extension', 'proxy', 'endpoint_agent', 'api'][i % 4], interaction_type: ['prompt', 'completion'][i % 2],
        classifications: i % 3 === 0 ? [] : [
          classification(TYPES[i % 3]!, { value: i % 2 === 0 ? '4111 1111 1111 1111' : 'jane@example.com' }),
        ],
      }));
      expect((await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items })).statusCode).toBe(200);
      h.clock.advance(60_000);
    }
    const other = await h.tenant('Other');
    await h.call('POST', '/api/v1/interactions', { token: other.adminToken, body: interactionBody({ platform_id: 'claude' }) });
    stored = [];
    let cursor: string | undefined;
    do {
      const page = (await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { limit: 500, ...(cursor ? { cursor } : {}) } })).json();
      stored.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }, 120_000);
  afterAll(async () => h.close());

  const dryRun = (body: unknown, query: Record<string, string> = {}, token = t.adminToken) =>
    h.call('POST', '/api/v1/policies/dry-run', { token, body, query });

  /** The answer computed apart: the newest `limit` interactions of the range, judged by the policy. */
  function expected(action: Action, conditions: PolicyConditions, range: { start?: string; end?: string }, limit: number) {
    const inRange = stored.filter((i) => (!range.start || i.timestamp >= range.start) && (!range.end || i.timestamp <= range.end));
    const examined = inRange.slice(0, limit);
    const hits = examined.filter((i) => matches(conditions, i));
    const by_action = { block: 0, coach: 0, log: 0 };
    for (const hit of hits) {
      const strongest = Math.min(RANK[action], ...hit.policy_decisions.map((d) => RANK[d.action]));
      by_action[(Object.keys(RANK) as Action[])[strongest]!] += 1;
    }
    return {
      matched: hits.length, by_action, alerts: action === 'log' ? 0 : hits.length, sample_ids: hits.slice(0, 20).map((i) => i.id),
      scanned: examined.length, truncated: inRange.length > limit,
    };
  }

  const subset = <T>(values: readonly T[]) => fc.subarray([...values], { minLength: 1 });
  const conditionsArb: fc.Arbitrary<PolicyConditions> = fc.record({
    platform_ids: subset(PLATFORMS),
    classification_types: subset(TYPES),
    min_risk_score: fc.integer({ min: 0, max: 10 }).map((n) => n / 10),
    directions: subset(['outbound', 'inbound'] as const),
    sources: subset(['browser_extension', 'proxy', 'endpoint_agent', 'api'] as const),
    interaction_types: subset(['prompt', 'completion'] as const),
    validated_only: fc.constant(true),
  }, { requiredKeys: [] });

  it('answers what counting the stored interactions says, for random policies and ranges', async () => {
    const times = [...new Set(stored.map((i) => i.timestamp))].sort();
    const bound = fc.option(fc.constantFrom(...times), { nil: undefined });
    await fc.assert(fc.asyncProperty(fc.constantFrom<Action>('block', 'coach', 'log'), conditionsArb, bound, bound,
      async (action, conditions, start, end) => {
        const query = Object.fromEntries(Object.entries({ start_date: start, end_date: end }).filter(([, v]) => v)) as Record<string, string>;
        const response = await dryRun({ name: 'try', action, conditions }, query);
        if (start && end && start > end) {
          expect(response.statusCode).toBe(400);
          return;
        }
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual(expected(action, conditions, { start, end }, MAX_ROWS));
      }), { numRuns: 40 });
  });

  it('says when the range held more than it examines, and stores nothing', async () => {
    const policies = (await h.call('GET', '/api/v1/policies', { token: t.adminToken })).json().total;
    const alerts = (await h.call('GET', '/api/v1/alerts', { token: t.adminToken })).json().total;
    const response = await dryRun({ name: 'all', action: 'block' });
    expect(response.json()).toEqual(expected('block', {}, {}, MAX_ROWS));
    expect(response.json()).toMatchObject({ scanned: MAX_ROWS, truncated: true, matched: MAX_ROWS, alerts: MAX_ROWS });
    expect((await h.call('GET', '/api/v1/policies', { token: t.adminToken })).json().total).toBe(policies);
    expect((await h.call('GET', '/api/v1/alerts', { token: t.adminToken })).json().total).toBe(alerts);
  });

  it('agrees with creating the policy and replaying the same interactions', async () => {
    const replayTenant = await h.tenant('Replay');
    const inputs = Array.from({ length: 120 }, (_, i) => interactionBody({
      platform_id: PLATFORMS[i % 3], risk_score: ((i * 3) % 10) / 10, source: i % 2 ? 'proxy' : 'api',
      classifications: i % 4 === 0 ? [] : [classification(TYPES[i % 3]!, { value: i % 5 ? '4111 1111 1111 1111' : '4111 1111 1111 1112' })],
    }));
    const ingest = async () => {
      const response = await h.call('POST', '/api/v1/interactions/batch', { token: replayTenant.adminToken, body: inputs });
      expect(response.json().stored).toBe(inputs.length);
    };
    await createPolicy(h, replayTenant, { name: 'mistral coach', action: 'coach', conditions: { platform_ids: ['mistral'] } });
    await ingest();
    h.clock.advance(60_000);
    const replayFrom = h.clock.now().toISOString();
    const candidate = { name: 'real cards, risky', action: 'block', severity: 'high',
      conditions: { classification_types: ['CREDIT_CARD'], validated_only: true, min_risk_score: 0.3 } };
    const predicted = (await dryRun(candidate, {}, replayTenant.adminToken)).json();
    expect(predicted.matched).toBeGreaterThan(0);

    const policy = await createPolicy(h, replayTenant, candidate);
    await ingest();
    const replayed = (await h.call('GET', '/api/v1/interactions', {
      token: replayTenant.adminToken, query: { start_date: replayFrom, limit: 500 },
    })).json().data as Stored[];
    const hits = replayed.filter((i) => i.policy_decisions.some((d) => d.policy_id === policy.id));
    expect(predicted.matched).toBe(hits.length);
    const outcomes = { block: 0, coach: 0, log: 0 };
    for (const hit of hits) outcomes[hit.policy_decisions[0]!.action] += 1; // strongest first
    expect(predicted.by_action).toEqual(outcomes);
    const raised = (await h.call('GET', '/api/v1/alerts', { token: replayTenant.adminToken, query: { policy_id: policy.id } })).json();
    expect(predicted.alerts).toBe(raised.total);
  });

  it('refuses bad policies and ranges with 400', async () => {
    for (const [body, query] of [
      [{ name: 'no action' }, {}],
      [{ name: 'x', action: 'ban' }, {}],
      [{ name: 'x', action: 'log', conditions: { platform_ids: ['Not A Platform!'] } }, {}],
      [{ name: 'x', action: 'log', conditions: { colour: ['red'] } }, {}],
      [{ name: 'x', action: 'log' }, { start_date: 'yesterday' }],
    ] as Array<[unknown, Record<string, string>]>) {
      const response = await dryRun(body, query);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('validation_error');
    }
  });

  it('is for admins: viewers and API keys get 403, no token 401', async () => {
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:read', 'interactions:write']);
    for (const token of [viewer.token, key]) expect((await dryRun({ name: 'x', action: 'log' }, {}, token)).statusCode).toBe(403);
    expect((await h.call('POST', '/api/v1/policies/dry-run', { body: { name: 'x', action: 'log' } })).statusCode).toBe(401);
  });

  it("counts only the caller's tenant", async () => {
    const other = await h.tenant('Alone');
    const response = await dryRun({ name: 'x', action: 'log' }, {}, other.adminToken);
    expect(response.json()).toMatchObject({ matched: 0, scanned: 0, truncated: false, sample_ids: [] });
  });
});
