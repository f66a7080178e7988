import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactCounts } from '../../src/modules/counts/compaction.js';
import { countQuery } from '../../src/modules/interactions/interactions.totals.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';
import { plainCount, randomFilters, type Filters, seedSpread, toCriteria } from './totals-fixtures.js';

const RUNS = 60;

describe.each(STORES)('exact totals [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let timestamps: number[];

  beforeAll(async () => {
    // The seed moves the clock on by weeks: sessions must outlive it.
    h = await Harness.start(kind, { env: { SESSION_TTL_SECONDS: '31536000' } });
    t = await h.tenant();
    const other = await h.tenant('Other');
    timestamps = await seedSpread(h, t, 40);
    await seedSpread(h, other, 5);
  }, 120_000);
  afterAll(async () => h.close());

  async function apiTotal(filters: Filters): Promise<number> {
    const response = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { ...filters, limit: 1 } });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-total-count']).toBe(String(response.json().total));
    return response.json().total;
  }

  async function expectExact(label: string) {
    await fc.assert(fc.asyncProperty(randomFilters(() => timestamps), async (filters) => {
      expect(await apiTotal(filters), `${label}: ${JSON.stringify(filters)}`).toBe(await plainCount(h.db, t.tenantId, filters));
    }), { numRuns: RUNS });
  }

  it('equals count(*) of the same filters before the deltas are compacted, after, and after deletes', async () => {
    expect(Number((await sql<{ n: string }>`select count(*) as n from interaction_count_deltas`.execute(h.db)).rows[0]!.n)).toBeGreaterThan(0);
    await expectExact('deltas only');
    while (await compactCounts(h.db) > 0) { /* until every delta moved */ }
    expect(Number((await sql<{ n: string }>`select count(*) as n from interaction_counts`.execute(h.db)).rows[0]!.n)).toBeGreaterThan(0);
    await expectExact('compacted');

    const { rows } = await sql<{ id: string }>`select id from interactions where tenant_id = ${t.tenantId} order by random() limit 60`.execute(h.db);
    for (const { id } of rows) {
      expect((await h.call('DELETE', `/api/v1/interactions/${id}`, { token: t.adminToken })).statusCode).toBe(204);
    }
    await expectExact('deleted, not compacted');
    await compactCounts(h.db);
    await expectExact('deleted and compacted');
    // A count brought back to 0 leaves no row behind.
    expect((await sql`select 1 from interaction_counts where count = 0`.execute(h.db)).rows).toEqual([]);
  }, 300_000);

  it('is exact in every snapshot while interactions are created, deleted and compacted concurrently', async () => {
    let stop = false;
    let rounds = 0;
    const writer = (async () => {
      for (let round = 0; !stop; round++, rounds++) {
        const body = Array.from({ length: 20 }, (_, i) => interactionBody({
          platform_id: ['openai', 'claude'][i % 2], risk_score: (round * 7 + i) % 101 / 100,
          classifications: i % 3 ? [] : [classification('EMAIL')],
        }));
        await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body });
        const { rows } = await sql<{ id: string }>`select id from interactions where tenant_id = ${t.tenantId} limit 5`.execute(h.db);
        for (const { id } of rows) await h.call('DELETE', `/api/v1/interactions/${id}`, { token: t.adminToken });
        if (round % 3 === 0) await compactCounts(h.db);
        h.clock.advance(17 * 60_000);
      }
    })();
    const property = fc.asyncProperty(randomFilters(() => timestamps), async (filters) => {
      const criteria = toCriteria(filters);
      // Both counts in one snapshot: what the list would answer, and count(*).
      const [total, plain] = await h.db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => [
        Number((await countQuery(tx, t.tenantId, criteria).executeTakeFirstOrThrow()).total),
        await plainCount(tx, t.tenantId, filters),
      ]);
      expect(total, JSON.stringify(filters)).toBe(plain);
      // Leaves the writer a turn: on the embedded store, ingest waits for a free moment of its one connection.
      await sleep(5);
    });
    try {
      do await fc.assert(property, { numRuns: RUNS / 3 }); while (rounds < 5);
    } finally {
      stop = true;
      await writer;
    }
  }, 300_000);
});
