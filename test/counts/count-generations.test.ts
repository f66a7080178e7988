import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/kernel/ids.js';
import { compactCounts } from '../../src/modules/counts/compaction.js';
import type { ListCriteria } from '../../src/modules/interactions/interactions.list.js';
import { countInteractions, countQuery } from '../../src/modules/interactions/interactions.totals.js';
import { migrate } from '../../src/platform/store/migrate.js';
import type { Store } from '../../src/platform/store/store.js';
import { asOwner, createTestStore, STORES, type TestStore } from '../helpers/stores.js';
import { inTenants } from '../../src/platform/store/tenant-scope.js';

const PLATFORMS = ['p0', 'p1', 'p2', 'p3', 'p4'];
const CRITERIA: ListCriteria[] = [
  { range: {} },
  { range: {}, platform_id: 'p2' },
  { range: {}, classification_type: 'IBAN', risk_score_min: 0.5 },
  { range: { start: new Date('2024-03-05T00:00:00Z'), end: new Date('2024-03-05T23:59:59.999Z') }, source: 'proxy' },
];

/** Writes `n` interactions of one hour, in one statement, with dimensions drawn from `seed`. */
async function writeHour(store: Store, tenantId: string, seed: number, n = 3) {
  await sql`insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type,
      content_metadata, classifications, risk_score, direction, source, user_id, policy_decisions)
    select ${tenantId}, gen_random_uuid(), timestamptz '2024-03-05 10:00Z' + ((${seed} * 7 + k) % 3600) * interval '1 second',
      (${PLATFORMS}::text[])[(${seed} + k) % 5 + 1], repeat('a', 64), 'prompt', '{}',
      case when (${seed} + k) % 3 = 0 then '[{"type":"IBAN"}]'::jsonb else '[]'::jsonb end,
      ((${seed} + k) % 10) / 10.0, 'outbound', case when k % 2 = 0 then 'proxy' else 'api' end, null, '[]'
    from generate_series(1, ${n}) as k`.execute(store.db);
}

async function plain(store: Store, tenantId: string, criteria: ListCriteria): Promise<number> {
  const { rows: [row] } = await sql<{ n: string | number }>`select count(*) as n from interactions where tenant_id = ${tenantId}
    and (${criteria.platform_id ?? null}::text is null or platform_id = ${criteria.platform_id ?? null})
    and (${criteria.source ?? null}::text is null or source = ${criteria.source ?? null})
    and (${criteria.risk_score_min ?? null}::float8 is null or risk_score >= ${criteria.risk_score_min ?? null})
    and (${criteria.classification_type ?? null}::text is null or classifications @> ${JSON.stringify([{ type: criteria.classification_type }])}::jsonb)
    and (${criteria.range.start ?? null}::timestamptz is null or timestamp >= ${criteria.range.start ?? null})
    and (${criteria.range.end ?? null}::timestamptz is null or timestamp <= ${criteria.range.end ?? null})`.execute(store.db);
  return Number(row!.n);
}

async function newTenant(store: Store): Promise<string> {
  const tenantId = uuidv7();
  await sql`insert into tenants (id, name, created_at) values (${tenantId}, 'Counted', now())`.execute(store.db);
  return tenantId;
}

describe.each(STORES)('count generations [%s]', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.destroy();
    testStore = undefined;
  });

  it('folds many small writes into the same buckets: totals exact at every step, generations merged, rows bounded by the keys', async () => {
    testStore = await createTestStore(kind);
    const store = asOwner(testStore.store);
    await migrate(store.db);
    const tenantId = await newTenant(store);
    for (let round = 0; round < 150; round++) {
      await writeHour(store, tenantId, round);
      if (round % 4 === 3) await sql`delete from interactions where tenant_id = ${tenantId} and ctid = (select ctid from interactions where tenant_id = ${tenantId} limit 1)`.execute(store.db);
      await compactCounts(store.db);
      if (round % 15 === 0) {
        for (const criteria of CRITERIA) expect(await countInteractions(store.db, tenantId, criteria), `${round} ${JSON.stringify(criteria)}`).toBe(await plain(store, tenantId, criteria));
      }
    }
    while (await compactCounts(store.db) > 0) { /* until every delta is folded */ }
    for (const criteria of CRITERIA) expect(await countInteractions(store.db, tenantId, criteria)).toBe(await plain(store, tenantId, criteria));

    // Each bucket holds one generation (older ones deleted by the merge that replaced them) and
    // at most about twice as many rows as it has keys.
    const { rows } = await sql<{ granularity: string; generations: string | number; merged: string | number; rows: string | number; keys: string | number }>`
      select granularity, count(distinct generation) as generations, count(*) filter (where not appended and generation > 0) as merged,
        count(*) as rows, count(distinct (classification_type, platform_id, source, direction, risk_bucket)) as keys
      from interaction_counts where tenant_id = ${tenantId} group by granularity order by granularity`.execute(store.db);
    expect(rows.map((row) => row.granularity)).toEqual(['day', 'hour', 'month']);
    for (const row of rows) {
      expect(Number(row.generations), row.granularity).toBe(1);
      expect(Number(row.merged), row.granularity).toBeGreaterThan(0);
      expect(Number(row.rows), row.granularity).toBeLessThanOrEqual(2 * Number(row.keys) + 64 + 40);
    }
    // The fold decides merges from count_heads, never by counting a bucket: it must hold each
    // bucket's current generation and sizes exactly.
    const { rows: heads } = await sql<{ kept: string; actual: string }>`
      with actual as (
        select c.tenant_id, c.granularity, c.bucket, c.generation,
          count(*) filter (where not c.appended) as merged, count(*) filter (where c.appended) as appended
        from interaction_counts c where c.tenant_id = ${tenantId}
          and c.generation = (select max(generation) from interaction_counts n where n.tenant_id = c.tenant_id
            and n.granularity = c.granularity and n.bucket = c.bucket)
        group by 1, 2, 3, 4
      )
      select concat_ws(' ', h.granularity, h.generation, h.merged, h.appended) as kept,
        concat_ws(' ', a.granularity, a.generation, a.merged, a.appended) as actual
      from count_heads h full join actual a using (tenant_id, granularity, bucket)
      where h.family = 'interactions' and h.tenant_id = ${tenantId} or a.tenant_id is not null`.execute(store.db);
    expect(heads.length).toBe(3);
    for (const head of heads) expect(head.kept).toBe(head.actual);
  }, 120_000);
});

describe.runIf(STORES.includes('postgres'))('count generations while a snapshot is held [postgres]', () => {
  let testStore: TestStore | undefined;
  let holder: pg.Client | undefined;
  afterEach(async () => {
    await holder?.end();
    await testStore?.destroy();
    holder = undefined;
    testStore = undefined;
  });

  /** Shared buffers a total reads (EXPLAIN ANALYZE, BUFFERS): the work, whatever the machine's speed. */
  async function buffersRead(store: Store, tenantId: string, criteria: ListCriteria): Promise<number> {
    const compiled = countQuery(store.db, tenantId, criteria).compile();
    const { rows: [row] } = await inTenants([tenantId], () => store.db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: Record<string, number> }> }>(
      CompiledQuery.raw(`explain (analyze, buffers, format json) ${compiled.sql}`, [...compiled.parameters])));
    const plan = row!['QUERY PLAN'][0]!.Plan;
    return plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
  }

  it('reads no more buffers for a total after hundreds of folds than after a few, although vacuum can remove nothing', async () => {
    testStore = await createTestStore('postgres');
    const store = asOwner(testStore.store);
    await migrate(store.db);
    const tenantId = await newTenant(store);
    // A transaction holding one snapshot, as a nightly pg_dump does: no dead row can be removed meanwhile.
    holder = new pg.Client({ connectionString: testStore.databaseUrl });
    await holder.connect();
    await holder.query('begin isolation level repeatable read');
    await holder.query('select count(*) from interactions');

    const foldRounds = async (n: number, from: number) => {
      for (let round = from; round < from + n; round++) {
        await writeHour(store, tenantId, round, 20);
        await compactCounts(store.db);
      }
    };
    await foldRounds(60, 0);
    const early = await Promise.all(CRITERIA.map((criteria) => buffersRead(store, tenantId, criteria)));
    await foldRounds(400, 60);
    const late = await Promise.all(CRITERIA.map((criteria) => buffersRead(store, tenantId, criteria)));
    const { rows: [dead] } = await sql<{ n: string }>`select n_dead_tup as n from pg_stat_user_tables where relname = 'interaction_counts'`
      .execute(store.db);
    expect(Number(dead!.n)).toBeGreaterThan(1000);
    CRITERIA.forEach((criteria, i) => {
      expect(late[i], `${JSON.stringify(criteria)}: ${early[i]} then ${late[i]} buffers`).toBeLessThanOrEqual(early[i]! * 1.5 + 30);
    });
    for (const criteria of CRITERIA) expect(await countInteractions(store.db, tenantId, criteria)).toBe(await plain(store, tenantId, criteria));
  }, 180_000);

  it('folds past a writing transaction of another database of the cluster, never past one of its own', async () => {
    testStore = await createTestStore('postgres');
    const store = asOwner(testStore.store);
    await migrate(store.db);
    const tenantId = await newTenant(store);
    const writing = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('begin');
      await client.query('select pg_current_xact_id()');
      return client;
    };
    // The cluster's other database (the one the test databases are made from) holds a transaction id.
    const elsewhere = await writing(process.env.TEST_DATABASE_URL!);
    try {
      await writeHour(store, tenantId, 1);
      expect(await compactCounts(store.db)).toBeGreaterThan(0);
      // One of this database could still commit deltas below any mark past it: the fold waits.
      holder = await writing(testStore.databaseUrl!);
      await writeHour(store, tenantId, 2);
      expect(await compactCounts(store.db)).toBe(0);
      for (const criteria of CRITERIA) expect(await countInteractions(store.db, tenantId, criteria)).toBe(await plain(store, tenantId, criteria));
      await holder.query('commit');
      expect(await compactCounts(store.db)).toBeGreaterThan(0);
      for (const criteria of CRITERIA) expect(await countInteractions(store.db, tenantId, criteria)).toBe(await plain(store, tenantId, criteria));
    } finally {
      await elsewhere.query('rollback');
      await elsewhere.end();
    }
  });
});
