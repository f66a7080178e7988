import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUpkeepWorker } from '../../src/platform/store/upkeep.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

/** Interactions sent through the batch API, 500 per request. */
async function send(h: Harness, t: TestTenant, total: number) {
  for (let sent = 0; sent < total; sent += 500) {
    const body = Array.from({ length: 500 }, (_, i) => interactionBody({
      platform_id: i % 2 ? 'openai' : 'claude', source: i % 3 ? 'browser_extension' : 'proxy', direction: i % 2 ? 'inbound' : 'outbound',
    }));
    const response = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body });
    expect(response.statusCode, response.body).toBe(200);
  }
}

describe.each(STORES)('table upkeep [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await Harness.start(kind, { workers: true, workerOptions: { upkeepIntervalMs: 200 } });
    t = await h.tenant();
    // Autovacuum, where it runs, must not do it first: what is checked is the service's own work.
    // The deltas' own threshold is lowered (the service reads each table's settings): a few
    // thousand interactions leave fewer dead deltas than its default 1,000.
    if (kind === 'postgres') {
      await sql`alter table interactions set (autovacuum_enabled = off)`.execute(h.db);
      await sql`alter table interaction_count_deltas set (autovacuum_enabled = off, autovacuum_vacuum_threshold = 10)`.execute(h.db);
    }
  });
  afterAll(async () => h.close());

  it.runIf(kind === 'postgres')('analyzes the tables autovacuum left unanalyzed, and vacuums the folded deltas', async () => {
    await send(h, t, 5_000);
    const state = async () => (await sql<{ analyzed: boolean; vacuumed: boolean }>`
      select (select last_analyze is not null from pg_stat_user_tables where relname = 'interactions') as analyzed,
        (select last_vacuum is not null from pg_stat_user_tables where relname = 'interaction_count_deltas') as vacuumed`
      .execute(h.db)).rows[0];
    await expect.poll(state, { timeout: 30_000, interval: 250 }).toEqual({ analyzed: true, vacuumed: true });
    // Never analyzed, the table's row estimate was -1 (plans made for an empty table); now it is the rows it held then.
    const { rows: [table] } = await sql<{ tuples: number }>`select reltuples as tuples from pg_class where relname = 'interactions'`.execute(h.db);
    expect(table!.tuples).toBeGreaterThan(0);
    const list = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { source: 'proxy', direction: 'inbound' } });
    expect(list.statusCode).toBe(200);
    expect(list.json().total).toBe(Array.from({ length: 500 }, (_, i) => i).filter((i) => i % 3 === 0 && i % 2 === 1).length * 10);
  });

  it.runIf(kind === 'pglite')('analyzes a table once it holds twice the pages its last statistics saw', async () => {
    const pages = async () => (await sql<{ seen: number; now: number }>`
      select relpages as seen, pg_relation_size(oid) / current_setting('block_size')::int as now
      from pg_class where relname = 'interactions'`.execute(h.db)).rows[0]!;
    expect((await pages()).seen).toBe(0);
    await send(h, t, 5_000);
    expect((await pages()).now).toBeGreaterThan(100);
    await expect.poll(async () => (await pages()).seen, { timeout: 30_000, interval: 250 }).toBeGreaterThan(100);
    // Never analyzed, the table's row estimate was -1; now it is the rows it held then.
    const { rows: [table] } = await sql<{ tuples: number }>`select reltuples as tuples from pg_class where relname = 'interactions'`.execute(h.db);
    expect(table!.tuples).toBeGreaterThan(0);
  });

  it('leaves its first look for one interval after start, then does what was waiting', async () => {
    const waiting = await Harness.start(kind);
    try {
      const fresh = await waiting.tenant();
      await send(waiting, fresh, 5_000);
      const analyzed = async () => (await sql<{ analyzed: boolean }>`
        select ${kind === 'postgres'
          ? sql`(select last_analyze is not null from pg_stat_user_tables where relname = 'interactions')`
          : sql`(select relpages > 0 from pg_class where relname = 'interactions')`} as analyzed`.execute(waiting.db)).rows[0]!.analyzed;
      expect(await analyzed()).toBe(false);
      const upkeep = new StoreUpkeepWorker(waiting.deps.store, pino({ level: 'silent' }), 5_000);
      await upkeep.start();
      try {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect(await analyzed()).toBe(false);
        await expect.poll(analyzed, { timeout: 30_000, interval: 250 }).toBe(true);
      } finally {
        await upkeep.stop();
      }
    } finally {
      await waiting.close();
    }
  });
});
