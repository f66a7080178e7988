import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { alertTotal } from '../../src/modules/counts/alert-sums.js';
import { compactAlertCounts, compactCounts } from '../../src/modules/counts/compaction.js';
import { countInteractions } from '../../src/modules/interactions/interactions.totals.js';
import { migrate } from '../../src/platform/store/migrate.js';
import { createTestStore, ownerDb, type TestStore } from '../helpers/stores.js';

const TENANT = '00000000-0000-4000-8000-00000000aaaa';
const POLICY = '00000000-0000-4000-8000-00000000bbbb';
const insertInteraction = `insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type,
    content_metadata, classifications, risk_score, direction, source, user_id, policy_decisions)
  values ($1, gen_random_uuid(), date_trunc('milliseconds', now() - random() * interval '3 days'), 'openai', repeat('a', 64), 'prompt', '{}',
    '[]', random(), 'outbound', 'proxy', null, '[]') returning id, timestamp`;
const insertAlert = `insert into alerts (tenant_id, id, interaction_id, policy_id, policy_name, severity, status, created_at)
  values ($1, gen_random_uuid(), $2, $3, 'Cards', 'high', 'open', $4)`;

/**
 * The migrations of 0.8 from 0.7's schema while writers keep inserting interactions and alerts
 * (some in transactions that span the steps) and resolving alerts: 0014 changes the count tables
 * ingest writes through triggers and recounts the alerts, outside one transaction; 0017 locks
 * every tenant table. Each must get through (no lock-order deadlock tried again forever), and no
 * write may be lost from the counts or counted twice.
 */
describe('0.8 migrations while ingest goes on [postgres]', () => {
  let testStore: TestStore | undefined;
  afterEach(async () => testStore?.destroy());

  it.runIf(process.env.TEST_DATABASE_URL)('keeps every count exact, written before, during and after it', async () => {
    testStore = await createTestStore('postgres', { empty: true });
    const db = ownerDb(testStore.store);
    await migrate(db, { to: '0013_detected_values' });
    await sql`insert into tenants (id, name, created_at) values (${TENANT}, 'Counted', now())`.execute(db);
    await sql`insert into policies (tenant_id, id, name, description, action, severity, enabled, conditions, created_at, updated_at)
      values (${TENANT}, ${POLICY}, 'Cards', '', 'block', 'high', true, '{}', now(), now())`.execute(db);
    const setup = new pg.Client({ connectionString: testStore.databaseUrl });
    await setup.connect();
    for (let n = 0; n < 300; n++) {
      const { rows: [row] } = await setup.query(insertInteraction, [TENANT]);
      if (n % 3 === 0) await setup.query(insertAlert, [TENANT, row.id, POLICY, row.timestamp]);
    }
    await setup.end();

    const failures: string[] = [];
    let running = true;
    const writer = async (work: (client: pg.Client) => Promise<void>) => {
      const client = new pg.Client({ connectionString: testStore!.databaseUrl });
      await client.connect();
      try {
        while (running) await work(client).catch((error: Error) => { failures.push(error.message); });
      } finally {
        await client.end();
      }
    };
    const writers = [
      writer(async (client) => { await client.query(insertInteraction, [TENANT]); await sleep(3); }),
      // One transaction across the migration's steps: its id is taken before the step, its writes land after.
      writer(async (client) => {
        await client.query('begin');
        await client.query('select pg_current_xact_id()');
        await sleep(40);
        const { rows: [row] } = await client.query(insertInteraction, [TENANT]);
        await sleep(40);
        await client.query(insertAlert, [TENANT, row.id, POLICY, row.timestamp]);
        await client.query('commit');
      }),
      writer(async (client) => {
        await client.query(`update alerts set status = case status when 'open' then 'resolved' else 'open' end
          where id = (select id from alerts order by random() limit 1)`);
        await sleep(5);
      }),
    ];
    // A transaction older than the migration that writes only after it: its id lies below
    // anything the migration took, and its deltas must still be counted.
    const older = new pg.Client({ connectionString: testStore.databaseUrl });
    await older.connect();
    await older.query('begin');
    await older.query('select pg_current_xact_id()');
    await sleep(200);
    await migrate(db);
    const { rows: [late] } = await older.query(insertInteraction, [TENANT]);
    await older.query(insertAlert, [TENANT, late.id, POLICY, late.timestamp]);
    await older.query('commit');
    await older.end();
    await sleep(300);
    running = false;
    await Promise.all(writers);
    expect(failures).toEqual([]);

    const exact = async () => {
      const { rows: [plain] } = await sql<{ interactions: string; open: string; resolved: string }>`select
        (select count(*) from interactions) as interactions,
        (select count(*) from alerts where status = 'open') as open,
        (select count(*) from alerts where status = 'resolved') as resolved`.execute(db);
      const { rows: [counted] } = await sql<{ open: string; resolved: string }>`select
        ${alertTotal(TENANT, { status: 'open' }, {})} as open, ${alertTotal(TENANT, { status: 'resolved' }, {})} as resolved`.execute(db);
      expect({ interactions: await countInteractions(db, TENANT, { range: {} }), open: Number(counted!.open), resolved: Number(counted!.resolved) })
        .toEqual({ interactions: Number(plain!.interactions), open: Number(plain!.open), resolved: Number(plain!.resolved) });
      return Number(plain!.interactions);
    };
    expect(await exact()).toBeGreaterThan(300);
    while (await compactCounts(db) + await compactAlertCounts(db) > 0) { /* until every delta is folded */ }
    await exact();
  });
});
