import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactCounts } from '../../src/modules/counts/compaction.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { randomFilters, seedSpread } from '../interactions/totals-fixtures.js';

const BANDS = ['risk_score < 0.2', 'risk_score >= 0.2 and risk_score < 0.4', 'risk_score >= 0.4 and risk_score < 0.6',
  'risk_score >= 0.6 and risk_score < 0.8', 'risk_score >= 0.8'];

describe.each(STORES)('stats equal counting rows [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let timestamps: number[];

  beforeAll(async () => {
    h = await Harness.start(kind, { env: { SESSION_TTL_SECONDS: '31536000' } });
    t = await h.tenant();
    timestamps = await seedSpread(h, t, 30);
    await seedSpread(h, await h.tenant('Other'), 4);
  }, 120_000);
  afterAll(async () => h.close());

  /** The interactions part of the stats, counted row by row in SQL written apart from the service. */
  async function counted(start: string | undefined, end: string | undefined) {
    const range = sql`tenant_id = ${t.tenantId}
      and (${start ?? null}::timestamptz is null or timestamp >= ${start ?? null}::timestamptz)
      and (${end ?? null}::timestamptz is null or timestamp <= ${end ?? null}::timestamptz)`;
    const one = async (query: ReturnType<typeof sql>) => (await query.execute(h.db)).rows as Array<Record<string, unknown>>;
    const [totals] = await one(sql`select count(*) as n,
      ${sql.join(['browser_extension', 'proxy', 'endpoint_agent', 'api'].map((s, i) => sql`count(*) filter (where source = ${s}) as ${sql.ref(`s${i}`)}`))},
      ${sql.join(BANDS.map((band, i) => sql`count(*) filter (where ${sql.raw(band)}) as ${sql.ref(`b${i}`)}`))}
      from interactions where ${range}`);
    const platforms = await one(sql`select platform_id, count(*) as count from interactions where ${range}
      group by platform_id order by count(*) desc, platform_id`);
    const types = await one(sql`select c.type, count(distinct i.id) as count
      from interactions i cross join lateral (select c->>'type' as type from jsonb_array_elements(i.classifications) c) c
      where ${range} group by c.type order by count(distinct i.id) desc, c.type`);
    const numbers = Object.values(totals!).map(Number);
    return {
      total: numbers[0],
      by_source: { browser_extension: numbers[1], proxy: numbers[2], endpoint_agent: numbers[3], api: numbers[4] },
      bands: numbers.slice(5),
      by_platform: platforms.map((row) => ({ platform_id: row.platform_id, count: Number(row.count) })),
      by_classification_type: types.map((row) => ({ type: row.type, count: Number(row.count) })),
    };
  }

  async function expectSame(label: string) {
    await fc.assert(fc.asyncProperty(randomFilters(() => timestamps), async ({ start_date, end_date }) => {
      const query = Object.fromEntries(Object.entries({ start_date, end_date }).filter(([, value]) => value !== undefined)) as Record<string, string>;
      const response = await h.call('GET', '/api/v1/stats', { token: t.adminToken, query });
      expect(response.statusCode, response.body).toBe(200);
      const { interactions } = response.json();
      const expected = await counted(start_date, end_date);
      const context = `${label}: ${start_date} .. ${end_date}`;
      expect(interactions.total, context).toBe(expected.total);
      expect(interactions.by_source, context).toEqual(expected.by_source);
      expect(interactions.by_risk_band.map((band: { count: number }) => band.count), context).toEqual(expected.bands);
      expect(interactions.by_platform, context).toEqual(expected.by_platform);
      expect(interactions.by_classification_type, context).toEqual(expected.by_classification_type);
    }), { numRuns: 40 });
  }

  it('counts the same as the rows for any date range, before and after compaction and deletes', async () => {
    await expectSame('deltas only');
    while (await compactCounts(h.db) > 0) { /* until every delta moved */ }
    await expectSame('compacted');
    const { rows } = await sql<{ id: string }>`select id from interactions where tenant_id = ${t.tenantId} order by random() limit 40`.execute(h.db);
    for (const { id } of rows) expect((await h.call('DELETE', `/api/v1/interactions/${id}`, { token: t.adminToken })).statusCode).toBe(204);
    await expectSame('deleted');
    await compactCounts(h.db);
    await expectSame('deleted and compacted');
  }, 300_000);
});
