import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactAlertCounts, compactCounts } from '../../src/modules/counts/compaction.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { openAlertsBySeverity } from '../../src/modules/counts/alert-sums.js';
import { randomFilters, seedSpread } from '../interactions/totals-fixtures.js';

const SEVERITIES = ['low', 'medium', 'high', 'critical'];
const BANDS = ['risk_score < 0.2', 'risk_score >= 0.2 and risk_score < 0.4', 'risk_score >= 0.4 and risk_score < 0.6',
  'risk_score >= 0.6 and risk_score < 0.8', 'risk_score >= 0.8'];

describe.each(STORES)('stats equal counting rows [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let timestamps: number[];
  let policyIds: string[];

  beforeAll(async () => {
    h = await Harness.start(kind, { env: { SESSION_TTL_SECONDS: '31536000' } });
    t = await h.tenant();
    // Alerts of every severity on a part of the interactions (block and coach raise them).
    policyIds = [
      await createPolicy(h, t, { action: 'coach', severity: 'high', conditions: { platform_ids: ['openai'] } }),
      await createPolicy(h, t, { action: 'block', severity: 'critical', conditions: { sources: ['proxy'] } }),
      await createPolicy(h, t, { action: 'coach', severity: 'low', conditions: { min_risk_score: 0.5 } }),
      await createPolicy(h, t, { action: 'coach', severity: 'medium', conditions: { classification_types: ['IBAN'] } }),
    ].map((policy) => policy.id);
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
    const alertRange = sql`tenant_id = ${t.tenantId}
      and (${start ?? null}::timestamptz is null or created_at >= ${start ?? null}::timestamptz)
      and (${end ?? null}::timestamptz is null or created_at <= ${end ?? null}::timestamptz)`;
    const [alerts] = await one(sql`select
      ${sql.join(SEVERITIES.map((severity) => sql`count(*) filter (where severity = ${severity}) as ${sql.ref(severity)}`))}
      from alerts where status = 'open' and ${alertRange}`);
    const topUsers = await one(sql`select user_id, count(*) filter (where risk_score >= 0.7) as high_risk, count(*) as total
      from interactions where ${range} and user_id is not null group by user_id
      having count(*) filter (where risk_score >= 0.7) > 0 order by 2 desc, user_id limit 10`);
    const numbers = Object.values(totals!).map(Number);
    return {
      total: numbers[0],
      by_source: { browser_extension: numbers[1], proxy: numbers[2], endpoint_agent: numbers[3], api: numbers[4] },
      bands: numbers.slice(5),
      by_platform: platforms.map((row) => ({ platform_id: row.platform_id, count: Number(row.count) })),
      by_classification_type: types.map((row) => ({ type: row.type, count: Number(row.count) })),
      open_by_severity: Object.fromEntries(Object.entries(alerts!).map(([severity, n]) => [severity, Number(n)])),
      top_users: topUsers.map((row) => ({ user_id: row.user_id, high_risk: Number(row.high_risk), total: Number(row.total) })),
    };
  }

  async function expectSame(label: string) {
    await fc.assert(fc.asyncProperty(randomFilters(() => timestamps), async ({ start_date, end_date }) => {
      const query = Object.fromEntries(Object.entries({ start_date, end_date }).filter(([, value]) => value !== undefined)) as Record<string, string>;
      const response = await h.call('GET', '/api/v1/stats', { token: t.adminToken, query });
      expect(response.statusCode, response.body).toBe(200);
      const { interactions, alerts, top_users } = response.json();
      const expected = await counted(start_date, end_date);
      const context = `${label}: ${start_date} .. ${end_date}`;
      expect(interactions.total, context).toBe(expected.total);
      expect(interactions.by_source, context).toEqual(expected.by_source);
      expect(interactions.by_risk_band.map((band: { count: number }) => band.count), context).toEqual(expected.bands);
      expect(interactions.by_platform, context).toEqual(expected.by_platform);
      expect(interactions.by_classification_type, context).toEqual(expected.by_classification_type);
      expect(alerts.open_by_severity, context).toEqual(expected.open_by_severity);
      expect(top_users, context).toEqual(expected.top_users);
    }), { numRuns: 40 });
    await expectAlertTotals(label);
  }

  /** The alerts list's total (from the alert counts) equals count(*) for random filters and ranges. */
  async function expectAlertTotals(label: string) {
    const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
    const filters = fc.record({
      status: optional(fc.constantFrom('open', 'resolved')),
      severity: optional(fc.constantFrom(...SEVERITIES)),
      policy_id: optional(fc.constantFrom(...policyIds)),
      range: randomFilters(() => timestamps),
    });
    await fc.assert(fc.asyncProperty(filters, async ({ range: { start_date, end_date }, ...dims }) => {
      const query = Object.fromEntries(Object.entries({ ...dims, start_date, end_date }).filter(([, value]) => value !== undefined)) as Record<string, string>;
      const response = await h.call('GET', '/api/v1/alerts', { token: t.adminToken, query: { ...query, limit: '1' } });
      expect(response.statusCode, response.body).toBe(200);
      const { rows: [plain] } = await sql<{ n: string }>`select count(*) as n from alerts where tenant_id = ${t.tenantId}
        and (${dims.status ?? null}::text is null or status = ${dims.status ?? null})
        and (${dims.severity ?? null}::text is null or severity = ${dims.severity ?? null})
        and (${dims.policy_id ?? null}::uuid is null or policy_id = ${dims.policy_id ?? null})
        and (${start_date ?? null}::timestamptz is null or created_at >= ${start_date ?? null}::timestamptz)
        and (${end_date ?? null}::timestamptz is null or created_at <= ${end_date ?? null}::timestamptz)`.execute(h.db);
      expect(response.json().total, `${label}: ${JSON.stringify(query)}`).toBe(Number(plain!.n));
    }), { numRuns: 40 });
  }

  const compactAll = async () => {
    while (await compactCounts(h.db) + await compactAlertCounts(h.db) > 0) { /* until every delta moved */ }
  };

  /** Resolves `n` random open alerts through the API. */
  async function resolveSome(n: number) {
    const { rows } = await sql<{ id: string }>`select id from alerts where tenant_id = ${t.tenantId} and status = 'open'
      order by random() limit ${n}`.execute(h.db);
    for (const { id } of rows) {
      expect((await h.call('POST', `/api/v1/alerts/${id}/resolve`, { token: t.adminToken })).statusCode).toBe(200);
    }
  }

  it('counts the same as the rows for any date range, before and after compaction, resolves and deletes', async () => {
    const open = await sql<{ n: string }>`select count(*) as n from alerts where tenant_id = ${t.tenantId} and status = 'open'`.execute(h.db);
    expect(Number(open.rows[0]!.n)).toBeGreaterThan(100);
    await expectSame('deltas only');
    await compactAll();
    await expectSame('compacted');
    await resolveSome(30);
    await expectSame('resolved');
    await compactAll();
    await expectSame('resolved and compacted');
    const { rows } = await sql<{ id: string }>`select id from interactions where tenant_id = ${t.tenantId} order by random() limit 40`.execute(h.db);
    for (const { id } of rows) expect((await h.call('DELETE', `/api/v1/interactions/${id}`, { token: t.adminToken })).statusCode).toBe(204);
    await resolveSome(10);
    await expectSame('deleted');
    await compactAll();
    await expectSame('deleted and compacted');
  }, 300_000);

  it('counts open alerts exactly in every snapshot while alerts are raised, resolved and compacted concurrently', async () => {
    let stop = false;
    let rounds = 0;
    const writer = (async () => {
      for (let round = 0; !stop; round++, rounds++) {
        const body = Array.from({ length: 10 }, (_, i) => interactionBody({
          platform_id: ['openai', 'claude'][i % 2], source: i % 3 ? 'proxy' : 'api', risk_score: (round * 7 + i) % 101 / 100,
        }));
        await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body });
        await resolveSome(3);
        if (round % 3 === 0) await compactAlertCounts(h.db);
        h.clock.advance(17 * 60_000);
      }
    })();
    const property = fc.asyncProperty(randomFilters(() => timestamps), async ({ start_date, end_date }) => {
      const range = { start: start_date ? new Date(start_date) : undefined, end: end_date ? new Date(end_date) : undefined };
      const [counted, plain] = await h.db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => [
        await openAlertsBySeverity(tx, t.tenantId, range),
        (await sql<{ severity: string; count: string }>`select severity, count(*) as count from alerts
          where tenant_id = ${t.tenantId} and status = 'open'
            and (${start_date ?? null}::timestamptz is null or created_at >= ${start_date ?? null}::timestamptz)
            and (${end_date ?? null}::timestamptz is null or created_at <= ${end_date ?? null}::timestamptz)
          group by severity`.execute(tx)).rows,
      ]);
      const bySeverity = (rows: Array<{ severity: string; count: string | number }>) =>
        Object.fromEntries(rows.map((row) => [row.severity, Number(row.count)]).filter(([, n]) => n !== 0));
      expect(bySeverity(counted), `${start_date} .. ${end_date}`).toEqual(bySeverity(plain));
      // Leaves the writer a turn: on the embedded store, ingest waits for a free moment of its one connection.
      await sleep(5);
    });
    try {
      // Until the writer has gone round a few times (on the embedded store, the two take turns).
      do await fc.assert(property, { numRuns: 20 }); while (rounds < 5);
    } finally {
      stop = true;
      await writer;
    }
  }, 300_000);
});
