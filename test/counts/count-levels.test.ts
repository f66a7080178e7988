import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/kernel/ids.js';
import { compactCounts } from '../../src/modules/counts/compaction.js';
import type { ListCriteria } from '../../src/modules/interactions/interactions.list.js';
import { countInteractions } from '../../src/modules/interactions/interactions.totals.js';
import { migrate } from '../../src/platform/store/migrate.js';
import type { Store } from '../../src/platform/store/store.js';
import { asOwner, createTestStore, STORES, type TestStore } from '../helpers/stores.js';

const PLATFORMS = ['p0', 'p1', 'p2'];
const SOURCES = ['proxy', 'api', 'browser_extension'];
const DAY = { start: new Date('2024-03-05T00:00:00Z'), end: new Date('2024-03-05T23:59:59.999Z') };

/** The filters each level answers, and those only the detail rows answer. */
const CRITERIA: ListCriteria[] = [
  { range: {}, platform_id: 'p1' },
  { range: DAY, platform_id: 'p2', risk_score_min: 0.5 },
  { range: {}, source: 'api' },
  { range: {}, direction: 'inbound' },
  { range: DAY, source: 'proxy', direction: 'outbound', classification_type: 'IBAN' },
  { range: {}, risk_score_min: 0.3, risk_score_max: 0.7 },
  { range: DAY, source: 'browser_extension', risk_score_min: 0.8 },
  { range: {}, platform_id: 'p0', source: 'api' },
  { range: {}, direction: 'inbound', risk_score_min: 0.5 },
];

/** `n` interactions of one day, in one statement, with dimensions drawn from `seed`. */
async function write(store: Store, tenantId: string, seed: number, n = 5) {
  await sql`insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type,
      content_metadata, classifications, risk_score, direction, source, user_id, policy_decisions)
    select ${tenantId}, gen_random_uuid(), timestamptz '2024-03-05 00:00Z' + ((${seed} * 37 + k * 911) % 86400) * interval '1 second',
      (${PLATFORMS}::text[])[(${seed} + k) % 3 + 1], repeat('a', 64), 'prompt', '{}',
      case when (${seed} + k) % 3 = 0 then '[{"type":"IBAN"}]'::jsonb else '[]'::jsonb end,
      ((${seed} * 3 + k) % 10) / 10.0, case when (${seed} + k) % 4 = 0 then 'inbound' else 'outbound' end,
      (${SOURCES}::text[])[(${seed} * 5 + k) % 3 + 1], null, '[]'
    from generate_series(1, ${n}) as k`.execute(store.db);
}

async function plain(store: Store, tenantId: string, c: ListCriteria): Promise<number> {
  const { rows: [row] } = await sql<{ n: string | number }>`select count(*) as n from interactions where tenant_id = ${tenantId}
    and (${c.platform_id ?? null}::text is null or platform_id = ${c.platform_id ?? null})
    and (${c.source ?? null}::text is null or source = ${c.source ?? null})
    and (${c.direction ?? null}::text is null or direction = ${c.direction ?? null})
    and (${c.risk_score_min ?? null}::float8 is null or risk_score >= ${c.risk_score_min ?? null})
    and (${c.risk_score_max ?? null}::float8 is null or risk_score <= ${c.risk_score_max ?? null})
    and (${c.classification_type ?? null}::text is null or classifications @> ${JSON.stringify([{ type: c.classification_type }])}::jsonb)
    and (${c.range.start ?? null}::timestamptz is null or timestamp >= ${c.range.start ?? null})
    and (${c.range.end ?? null}::timestamptz is null or timestamp <= ${c.range.end ?? null})`.execute(store.db);
  return Number(row!.n);
}

/**
 * Level rows that differ from the sums of their generation's detail rows, and level rows of a
 * generation interaction_counts no longer holds: both empty when the levels are right.
 */
async function levelMismatches(store: Store, tenantId: string) {
  const { rows } = await sql<{ level: string; key: string; expected: string | null; actual: string | null }>`
    with detail as (select * from interaction_counts where tenant_id = ${tenantId} and platform_id <> ''),
    expected as (
      select granularity, bucket, generation, 'platform_risk' as level, classification_type, platform_id, '' as source, '' as direction,
        risk_bucket, sum(count) as n from detail group by 1, 2, 3, 5, 6, 9
      union all
      select granularity, bucket, generation, 'source_direction', classification_type, '', source, direction, -1, sum(count)
      from detail group by 1, 2, 3, 5, 7, 8
      union all
      select granularity, bucket, generation, 'source_risk', classification_type, '', source, '', risk_bucket, sum(count)
      from detail group by 1, 2, 3, 5, 7, 9),
    actual as (
      select granularity, bucket, generation, level, classification_type, platform_id, source, direction, risk_bucket, sum(count) as n
      from interaction_count_levels where tenant_id = ${tenantId} group by 1, 2, 3, 4, 5, 6, 7, 8, 9)
    select coalesce(e.level, a.level) as level,
      concat_ws('/', coalesce(e.granularity, a.granularity), coalesce(e.bucket, a.bucket), coalesce(e.generation, a.generation),
        coalesce(e.classification_type, a.classification_type), coalesce(e.platform_id, a.platform_id),
        coalesce(e.source, a.source), coalesce(e.direction, a.direction), coalesce(e.risk_bucket, a.risk_bucket)) as key,
      e.n::text as expected, a.n::text as actual
    from expected e full join actual a using (granularity, bucket, generation, level, classification_type, platform_id, source, direction, risk_bucket)
    where e.n is distinct from a.n and not (coalesce(e.n, 0) = 0 and coalesce(a.n, 0) = 0)`.execute(store.db);
  return rows;
}

async function newTenant(store: Store): Promise<string> {
  const tenantId = uuidv7();
  await sql`insert into tenants (id, name, created_at) values (${tenantId}, 'Levels', now())`.execute(store.db);
  return tenantId;
}

describe.each(STORES)('count levels [%s]', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.destroy();
    testStore = undefined;
  });

  it('hold the sums of each generation through folds, merges, deletes and a rebuild, and totals read from them are exact', async () => {
    testStore = await createTestStore(kind);
    const store = asOwner(testStore.store);
    await migrate(store.db);
    const tenantId = await newTenant(store);
    for (let round = 0; round < 120; round++) {
      await write(store, tenantId, round);
      if (round % 5 === 4) await sql`delete from interactions where tenant_id = ${tenantId} and ctid = (select ctid from interactions where tenant_id = ${tenantId} limit 1)`.execute(store.db);
      await compactCounts(store.db);
      if (round % 30 === 29) {
        expect(await levelMismatches(store, tenantId), `round ${round}`).toEqual([]);
        for (const criteria of CRITERIA) expect(await countInteractions(store.db, tenantId, criteria), JSON.stringify(criteria)).toBe(await plain(store, tenantId, criteria));
      }
    }
    // The merges replaced generations: none of their levels is left behind.
    const { rows: [merged] } = await sql<{ n: string | number }>`select count(distinct generation) as n from interaction_count_levels
      where tenant_id = ${tenantId} and generation not in (select generation from interaction_counts where tenant_id = ${tenantId})`.execute(store.db);
    expect(Number(merged!.n)).toBe(0);

    await sql`select interaction_counts_rebuild(${tenantId})`.execute(store.db);
    expect(await levelMismatches(store, tenantId)).toEqual([]);
    for (const criteria of CRITERIA) expect(await countInteractions(store.db, tenantId, criteria), JSON.stringify(criteria)).toBe(await plain(store, tenantId, criteria));
  });

  it('are computed by the migration for the generations written before it', async () => {
    testStore = await createTestStore(kind, { empty: true });
    const store = asOwner(testStore.store);
    await migrate(store.db, { to: '0024_platform_users_index' });
    const tenantId = await newTenant(store);
    for (let round = 0; round < 20; round++) {
      await write(store, tenantId, round);
      await compactCounts(store.db);
    }
    await migrate(store.db);
    const { rows: [levels] } = await sql<{ n: string | number }>`select count(*) as n from interaction_count_levels where tenant_id = ${tenantId}`.execute(store.db);
    expect(Number(levels!.n)).toBeGreaterThan(0);
    expect(await levelMismatches(store, tenantId)).toEqual([]);
    for (const criteria of CRITERIA) expect(await countInteractions(store.db, tenantId, criteria), JSON.stringify(criteria)).toBe(await plain(store, tenantId, criteria));
  });
});
