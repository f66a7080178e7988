import { CompiledQuery, type Compilable, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageRequest } from '../../src/kernel/paging/pagination.js';
import { type ListCriteria, openPage, pageQuery } from '../../src/modules/interactions/interactions.list.js';
import { searchQuery } from '../../src/modules/interactions/interactions.repo.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { planOf } from '../helpers/plans.js';
import { STORES } from '../helpers/stores.js';

const FIRST_PAGE: PageRequest = { limit: 10, offset: 0, cursor: undefined };
const U1 = '0190a0a0-0000-7000-8000-000000000001';

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
  ['user_id', { user_id: U1 }, /interactions_user_idx/],
  ['source', { source: 'proxy' }, /interactions_source_idx/],
  ['direction', { direction: 'inbound' }, /interactions_direction_idx/],
  ['classification_type', { classification_type: 'IBAN' }, /interaction_classification_types_(type_idx|pk)/],
];

/** List shapes whose order an index gives: a page reads limit + 1 entries of it, never sorts. */
const ORDERED_CASES: Array<[string, Partial<ListCriteria>, RegExp]> = [
  ['default sort -timestamp', {}, /interactions_time_idx/],
  ['sort timestamp', { sort: 'timestamp' }, /interactions_time_idx/],
  ['start_date and end_date', { range: { start: new Date('2024-01-01'), end: new Date('2030-01-01') } }, /interactions_time_idx/],
  ['sort risk_score', { sort: 'risk_score' }, /interactions_risk_idx/],
  ['sort -risk_score', { sort: '-risk_score' }, /interactions_risk_idx/],
  ['sort platform_id', { sort: 'platform_id' }, /interactions_platform_idx/],
  ['sort -platform_id', { sort: '-platform_id' }, /interactions_platform_idx/],
  ['platform_id', { platform_id: 'openai' }, /interactions_platform_idx/],
  ['platform_id, sort timestamp', { platform_id: 'openai', sort: 'timestamp' }, /interactions_platform_idx/],
  ['user_id', { user_id: U1 }, /interactions_user_idx/],
  ['source', { source: 'proxy' }, /interactions_source_idx/],
  ['direction', { direction: 'inbound' }, /interactions_direction_idx/],
  ['source + direction', { source: 'proxy', direction: 'inbound' }, /interactions_(source|direction)_idx/],
  ['platform_id, sort -risk_score', { platform_id: 'openai', sort: '-risk_score' }, /interactions_platform_risk_idx/],
  ['platform_id, sort risk_score', { platform_id: 'openai', sort: 'risk_score' }, /interactions_platform_risk_idx/],
  ['platform_id, sort -platform_id', { platform_id: 'openai', sort: '-platform_id' }, /interactions_platform_idx/],
  ['risk_score_min, sort -risk_score', { risk_score_min: 0.2, sort: '-risk_score' }, /interactions_risk_idx/],
  ['classification_type', { classification_type: 'IBAN' }, /interaction_classification_types_type_idx/],
  ['classification_type, sort timestamp', { classification_type: 'IBAN', sort: 'timestamp' }, /interaction_classification_types_type_idx/],
];

/** Shapes no single index orders: their pages sort the matching rows (docs/interactions.md). */
const SORTED_CASES: Array<[string, Partial<ListCriteria>]> = [
  ['risk_score_min', { risk_score_min: 0.5 }],
  ['classification_type, sort -risk_score', { classification_type: 'IBAN', sort: '-risk_score' }],
  ['source, sort platform_id', { source: 'proxy', sort: 'platform_id' }],
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
      direction: i % 4 < 2 ? 'outbound' : 'inbound', user_id: i % 5 === 0 ? U1 : null,
      classifications: i % 10 === 0 ? [classification('IBAN')] : [],
    }));
    await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items });
    await sql`analyze`.execute(h.db);
  });
  afterAll(async () => h.close());

  const plan = (query: Compilable | string, explain?: string) =>
    planOf(h.db, typeof query === 'string' ? CompiledQuery.raw(query, [t.tenantId]) : query.compile(), explain);

  /** The first page of a list shape, and the page after its next cursor. */
  async function pages(criteria: ListCriteria) {
    const first = openPage(criteria, FIRST_PAGE);
    const { page } = first.close(await pageQuery(h.db, t.tenantId, criteria, first).execute());
    expect(page.nextCursor).not.toBeNull();
    return { first, next: openPage(criteria, { ...FIRST_PAGE, cursor: page.nextCursor! }) };
  }

  it.each(LIST_CASES)('serves the list by %s from its index', async (_name, criteria, index) => {
    const listCriteria: ListCriteria = { range: {}, ...criteria };
    const page = await plan(pageQuery(h.db, t.tenantId, listCriteria, openPage(listCriteria, FIRST_PAGE)));
    expect(page).toMatch(index);
    expect(page).not.toMatch(/Seq Scan/);
  });

  it('serves the search by content hash from interactions_hash_idx, already in order', async () => {
    const text = await plan(searchQuery(h.db, t.tenantId, 'a'.repeat(64), {}, 100));
    expect(text).toMatch(/Index Scan Backward using interactions_hash_idx/);
    expect(text).not.toMatch(/Seq Scan|Sort/);
  });

  it.each(ORDERED_CASES)('reads a page by %s in index order, first page and cursor page, stopping after limit + 1 rows',
    async (_name, criteria, index) => {
      const listCriteria: ListCriteria = { range: {}, ...criteria };
      const { first, next } = await pages(listCriteria);
      for (const page of [first, next]) {
        const text = await plan(pageQuery(h.db, t.tenantId, listCriteria, page), 'explain (analyze, costs off, timing off)');
        expect(text).toMatch(index);
        expect(text).not.toMatch(/Seq Scan|Sort/);
        // The scan that gives the order hands over 11 rows (a page of 10, plus one) and stops.
        expect(text).toMatch(new RegExp(`using ${index.source}[^\\n]*\\(actual rows=11(\\.00)? loops=1\\)`));
      }
      // The cursor page seeks to the cursor's key: a row-value comparison in the index condition, no offset.
      const cursorPlan = await plan(pageQuery(h.db, t.tenantId, listCriteria, next));
      expect(cursorPlan).toMatch(/Index Cond: .*ROW\(/);
    });

  it.each(SORTED_CASES)('may sort a page by %s (no index gives that order), from an index', async (_name, criteria) => {
    const listCriteria: ListCriteria = { range: {}, ...criteria };
    const { first, next } = await pages(listCriteria);
    for (const page of [first, next]) {
      const text = await plan(pageQuery(h.db, t.tenantId, listCriteria, page));
      expect(text).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
      expect(text).not.toMatch(/Seq Scan/);
    }
  });

  it.each(ALERT_CASES)('serves %s from its index', async (_name, filter, index) => {
    const text = await plan(`select * from alerts where tenant_id = $1 ${filter} order by created_at desc, id desc limit 50`);
    expect(text).toMatch(index);
    expect(text).not.toMatch(/Seq Scan/);
  });
});
