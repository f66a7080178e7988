import { CompiledQuery, type Compilable, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListCriteria, pageQuery } from '../../src/modules/interactions/interactions.list.js';
import { searchQuery } from '../../src/modules/interactions/interactions.repo.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const PAGE = { page: 1, limit: 50, offset: 0 };

/**
 * Which index serves which query (docs/interactions.md). Sequential scans are switched off, as
 * the planner itself does once a tenant is a small part of a large table: then every query
 * must find an index starting with tenant_id that serves its filter or sort. The plans of the
 * totals are in count-plans.test.ts.
 */
const LIST_CASES: Array<[string, Partial<ListCriteria>, RegExp]> = [
  ['default sort -timestamp', {}, /interactions_time_idx/],
  ['sort timestamp', { sort: 'timestamp' }, /interactions_time_idx/],
  ['start_date and end_date', { range: { start: new Date('2024-01-01'), end: new Date('2030-01-01') } }, /interactions_time_idx/],
  ['platform_id', { platform_id: 'openai' }, /interactions_platform_idx/],
  ['sort platform_id', { sort: 'platform_id' }, /interactions_platform_idx/],
  ['sort -platform_id', { sort: '-platform_id' }, /interactions_platform_idx/],
  ['risk_score_min', { risk_score_min: 0.9 }, /interactions_risk_idx/],
  ['risk_score_max', { risk_score_max: 0.1 }, /interactions_risk_idx/],
  ['sort -risk_score', { sort: '-risk_score' }, /interactions_risk_idx/],
  ['user_id', { user_id: '0190a0a0-0000-7000-8000-000000000001' }, /interactions_user_idx/],
  ['source', { source: 'proxy' }, /interactions_source_idx/],
  ['direction', { direction: 'inbound' }, /interactions_direction_idx/],
  ['classification_type', { classification_type: 'IBAN' }, /interaction_classification_types_(type_idx|pk)/],
];

const ALERT_CASES: Array<[string, string, RegExp]> = [
  ['alerts, newest first', '', /alerts_created_idx/],
  ['alerts by status', `and status = 'open'`, /alerts_status_idx|alerts_open_severity_idx/],
  ['alerts by severity', `and severity = 'high'`, /alerts_severity_idx|alerts_open_severity_idx/],
  ['alerts by policy', `and policy_id = '0190a0a0-0000-7000-8000-000000000001'`, /alerts_policy_idx/],
  ['alerts by interaction', `and interaction_id = '0190a0a0-0000-7000-8000-000000000001'`, /alerts_interaction_idx/],
];

describe.each(STORES)('indexes [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    await createPolicy(h, t, { name: 'coach', action: 'coach', conditions: { min_risk_score: 0.9 } });
    const items = Array.from({ length: 300 }, (_, i) => interactionBody({
      platform_id: ['openai', 'claude', 'gemini'][i % 3], risk_score: (i % 100) / 100, source: i % 2 ? 'proxy' : 'api',
      classifications: i % 10 === 0 ? [classification('IBAN')] : [],
    }));
    await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items });
    await sql`analyze`.execute(h.db);
  });
  afterAll(async () => h.close());

  async function plan(query: Compilable | string): Promise<string> {
    const compiled = typeof query === 'string' ? CompiledQuery.raw(query, [t.tenantId]) : query.compile();
    return h.db.transaction().execute(async (tx) => {
      await sql`set local enable_seqscan = off`.execute(tx);
      const result = await tx.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
      return result.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it.each(LIST_CASES)('serves the list by %s from its index', async (_name, criteria, index) => {
    const page = await plan(pageQuery(h.db, t.tenantId, { range: {}, ...criteria }, PAGE));
    expect(page).toMatch(index);
    expect(page).not.toMatch(/Seq Scan/);
  });

  it('serves the search by content hash from interactions_hash_idx, already in order', async () => {
    const text = await plan(searchQuery(h.db, t.tenantId, 'a'.repeat(64), {}, 100));
    expect(text).toMatch(/Index Scan Backward using interactions_hash_idx/);
    expect(text).not.toMatch(/Seq Scan|Sort/);
  });

  it('serves the default list page in index order, without sorting', async () => {
    expect(await plan(pageQuery(h.db, t.tenantId, { range: {} }, PAGE))).not.toMatch(/Sort/);
    expect(await plan(pageQuery(h.db, t.tenantId, { range: {}, platform_id: 'openai' }, PAGE))).not.toMatch(/Sort/);
  });

  it.each(ALERT_CASES)('serves %s from its index', async (_name, filter, index) => {
    const text = await plan(`select * from alerts where tenant_id = $1 ${filter} order by created_at desc, id desc limit 50`);
    expect(text).toMatch(index);
    expect(text).not.toMatch(/Seq Scan/);
  });
});
