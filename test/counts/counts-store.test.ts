import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/platform/store/migrate.js';
import { RISK_THRESHOLDS, riskBucketOf } from '../../src/modules/counts/buckets.js';
import { openAlertsBySeverity } from '../../src/modules/counts/alert-sums.js';
import { compactAlertCounts, compactCounts } from '../../src/modules/counts/compaction.js';
import type { DateRange } from '../../src/kernel/dates.js';
import { countInteractions } from '../../src/modules/interactions/interactions.totals.js';
import { uuidv7 } from '../../src/kernel/ids.js';
import { createTestStore, ownerDb, STORES, type TestStore } from '../helpers/stores.js';

describe.each(STORES)('interaction counts in the store [%s]', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.destroy();
    testStore = undefined;
  });

  it('puts each score in the same risk bucket in SQL as the totals assume', async () => {
    testStore = await createTestStore(kind);
    await migrate(ownerDb(testStore.store));
    const scores = [0, 1, Number.MIN_VALUE, 1 - Number.EPSILON / 2, 0.05, 0.15, 0.95,
      ...RISK_THRESHOLDS.flatMap((t) => [t, t - Number.EPSILON / 4, t + Number.EPSILON / 4, t * (1 - 1e-15), t * (1 + 1e-15)])];
    const { rows } = await sql<{ score: number; bucket: number }>`
      select score, interaction_risk_bucket(score) as bucket from unnest(${scores}::float8[]) as score`.execute(ownerDb(testStore.store));
    expect(rows.map((row) => [row.score, Number(row.bucket)])).toEqual(scores.map((score) => [score, riskBucketOf(score)]));
  });

  it('counts the interactions stored before the upgrade that adds the counts', async () => {
    testStore = await createTestStore(kind, { empty: true });
    const db = ownerDb(testStore.store);
    await migrate(db, { to: '0006_tenant_versions' });
    const tenantId = uuidv7();
    await sql`insert into tenants (id, name, created_at) values (${tenantId}, 'Old', now())`.execute(db);
    await sql`insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type,
        content_metadata, classifications, risk_score, direction, source, user_id, policy_decisions)
      select ${tenantId}, gen_random_uuid(), timestamptz '2024-01-01' + n * interval '37 minutes', 'p' || (n % 3),
        repeat('a', 64), 'prompt', '{}', case when n % 4 = 0 then '[{"type":"IBAN"}]'::jsonb else '[]'::jsonb end,
        (n % 11) / 10.0, 'outbound', 'proxy', null, '[]'
      from generate_series(1, 500) as n`.execute(db);

    await migrate(db);
    const range = {};
    expect(await countInteractions(db, tenantId, { range })).toBe(500);
    expect(await countInteractions(db, tenantId, { range, classification_type: 'IBAN' })).toBe(125);
    expect(await countInteractions(db, tenantId, { range, platform_id: 'p1', risk_score_min: 0.5 })).toBe(
      Array.from({ length: 500 }, (_, i) => i + 1).filter((n) => n % 3 === 1 && (n % 11) / 10 >= 0.5).length);
    while (await compactCounts(db) > 0) { /* until every delta moved */ }
    expect(await countInteractions(db, tenantId, { range })).toBe(500);

    // The rebuild recounts from the rows whatever the counts held.
    await sql`update interaction_counts set count = count + 7`.execute(db);
    expect(await countInteractions(db, tenantId, { range })).not.toBe(500);
    await sql`select interaction_counts_rebuild(${tenantId})`.execute(db);
    expect(await countInteractions(db, tenantId, { range })).toBe(500);
    expect(await countInteractions(db, tenantId, { range, classification_type: 'IBAN' })).toBe(125);
  });

  it('counts the open alerts stored before the upgrade that adds their counts, sub-millisecond dates included', async () => {
    testStore = await createTestStore(kind, { empty: true });
    const db = ownerDb(testStore.store);
    await migrate(db, { to: '0008_list_indexes' });
    const tenantId = uuidv7();
    await sql`insert into tenants (id, name, created_at) values (${tenantId}, 'Old', now())`.execute(db);
    // 300 alerts every 37 minutes and a few microseconds: severities in turn, one in three resolved.
    await sql`insert into alerts (tenant_id, id, interaction_id, policy_id, policy_name, severity, status, created_at)
      select ${tenantId}, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'p',
        (array['low', 'medium', 'high', 'critical'])[n % 4 + 1], case when n % 3 = 0 then 'resolved' else 'open' end,
        timestamptz '2024-01-01' + n * interval '37 minutes 0.000123 seconds'
      from generate_series(1, 300) as n`.execute(db);

    await migrate(db);
    const expected = { low: 0, medium: 0, high: 0, critical: 0 };
    for (let n = 1; n <= 300; n++) if (n % 3 !== 0) expected[(['low', 'medium', 'high', 'critical'] as const)[n % 4]!] += 1;
    const bySeverity = async (range: DateRange = {}) => Object.fromEntries(
      (await openAlertsBySeverity(db, tenantId, range)).map((row) => [row.severity, Number(row.count)]));
    expect(await bySeverity()).toEqual(expected);
    while (await compactAlertCounts(db) > 0) { /* until every delta moved */ }
    expect(await bySeverity()).toEqual(expected);
    // A range with partial hours at both ends equals the rows' count.
    const range = { start: new Date('2024-01-02T05:17:00.123Z'), end: new Date('2024-01-05T11:03:59.999Z') };
    const { rows } = await sql<{ severity: string; n: string | number }>`select severity, count(*) as n from alerts
      where status = 'open' and created_at >= ${range.start} and created_at <= ${range.end} group by severity`.execute(db);
    expect(await bySeverity(range)).toEqual(Object.fromEntries(rows.map((row) => [row.severity, Number(row.n)])));

    await sql`update alert_counts set count = count + 7`.execute(db);
    expect(await bySeverity()).not.toEqual(expected);
    await sql`select alert_counts_rebuild(${tenantId})`.execute(db);
    expect(await bySeverity()).toEqual(expected);
  });
});
