import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertTotal } from '../../src/modules/counts/alert-sums.js';
import { compactAlertCounts, compactCounts } from '../../src/modules/counts/compaction.js';
import { countQuery } from '../../src/modules/interactions/interactions.totals.js';
import { applyDataRetention } from '../../src/modules/retention/data-retention.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';
import { PLATFORMS, USERS, type Filters, plainCount, randomFilters, seedSpread, toCriteria } from '../interactions/totals-fixtures.js';

const HOUR_MS = 60 * 60 * 1000;
/** Writer rounds at least: with 3 hours a round and a retention of one day, retention deletes from the ninth on. */
const MIN_ROUNDS = 12;

/**
 * Every way rows leave the interactions and alerts tables, at once and beside ingest: deletes
 * through the API, the retention job, a person's erasure, and the folds of the counts. Each
 * total is read in the same snapshot as count(*) of the same filters and must equal it.
 */
describe.each(STORES)('totals while ingest, deletes, retention, erasure and folds run together [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let timestamps: number[];

  beforeAll(async () => {
    h = await Harness.start(kind, { env: { SESSION_TTL_SECONDS: '31536000' } });
    t = await h.tenant();
    await createPolicy(h, t, { action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] } });
    timestamps = await seedSpread(h, t, 12);
    const retention = await h.call('PUT', '/api/v1/tenant', { token: t.adminToken, body: { retention_days: 1 } });
    expect(retention.statusCode, retention.body).toBe(200);
  }, 120_000);
  afterAll(async () => h.close());

  /** Both counts of a snapshot: the totals as the service reads them, and count(*) of the rows. */
  async function totalsInOneSnapshot(filters: Filters) {
    const criteria = toCriteria(filters);
    return h.db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
      const total = Number((await countQuery(tx, t.tenantId, criteria).executeTakeFirstOrThrow()).total);
      const plain = await plainCount(tx, t.tenantId, filters);
      const { rows: [alerts] } = await sql<{ counted: string; plain: string }>`select
        ${alertTotal(t.tenantId, { status: 'open' }, {})} as counted,
        (select count(*) from alerts where tenant_id = ${t.tenantId} and status = 'open') as plain`.execute(tx);
      return { interactions: { total, plain }, openAlerts: { total: Number(alerts!.counted), plain: Number(alerts!.plain) } };
    });
  }

  it('keeps every total exact in every snapshot', async () => {
    let stop = false;
    let rounds = 0;
    const removed = { retention: 0, erasure: 0, deletes: 0 };
    const writer = (async () => {
      for (let round = 0; !stop || round < MIN_ROUNDS; round++, rounds++) {
        const body = Array.from({ length: 20 }, (_, i) => interactionBody({
          platform_id: PLATFORMS[i % PLATFORMS.length], risk_score: (round * 7 + i) % 101 / 100,
          user_id: i % 4 === 3 ? null : USERS[i % USERS.length],
          classifications: i % 3 ? [] : [classification('CREDIT_CARD')],
        }));
        expect((await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body })).statusCode).toBe(200);
        timestamps.push(h.clock.now().getTime());
        const { rows } = await sql<{ id: string }>`select id from interactions where tenant_id = ${t.tenantId}
          order by id desc limit 3`.execute(h.db);
        for (const { id } of rows) {
          if ((await h.call('DELETE', `/api/v1/interactions/${id}`, { token: t.adminToken })).statusCode === 204) removed.deletes += 1;
        }
        await compactCounts(h.db);
        await compactAlertCounts(h.db);
        if (round % 2 === 1) {
          const runs = await applyDataRetention(h.deps);
          removed.retention += runs.find((run) => run.tenantId === t.tenantId)?.interactionsDeleted ?? 0;
        }
        if (round % 3 === 2) {
          const erased = await h.call('POST', `/api/v1/users/${USERS[round % USERS.length]}/erase-interactions`, { token: t.adminToken });
          expect(erased.statusCode, erased.body).toBe(200);
          removed.erasure += erased.json().interactions_deleted as number;
        }
        h.clock.advance(3 * HOUR_MS);
      }
    })();
    const property = fc.asyncProperty(randomFilters(() => timestamps), async (filters) => {
      const { interactions, openAlerts } = await totalsInOneSnapshot(filters);
      expect(interactions.total, JSON.stringify(filters)).toBe(interactions.plain);
      expect(openAlerts.total).toBe(openAlerts.plain);
      // Leaves the writer a turn: on the embedded store, ingest waits for a free moment of its one connection.
      await sleep(5);
    });
    try {
      do await fc.assert(property, { numRuns: 15 }); while (rounds < MIN_ROUNDS);
    } finally {
      stop = true;
      await writer;
    }
    // Each way of removing rows did remove some while the totals were being read.
    expect(removed.deletes).toBeGreaterThan(0);
    expect(removed.retention).toBeGreaterThan(0);
    expect(removed.erasure).toBeGreaterThan(0);

    while (await compactCounts(h.db) + await compactAlertCounts(h.db) > 0) { /* until every delta is folded */ }
    const remaining = Number((await sql<{ n: string }>`select count(*) as n from interactions where tenant_id = ${t.tenantId}`
      .execute(h.db)).rows[0]!.n);
    const list = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { limit: 1 } });
    expect(list.json().total).toBe(remaining);
    const stats = (await h.call('GET', '/api/v1/stats', { token: t.adminToken })).json();
    expect(stats.interactions.total).toBe(remaining);
    const { openAlerts } = await totalsInOneSnapshot({});
    expect(Object.values(stats.alerts.open_by_severity as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(openAlerts.plain);
  }, 300_000);
});
