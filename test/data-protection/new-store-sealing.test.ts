import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/platform/store/migrate.js';
import { STORES, createTestStore, ownerDb, type TestStore } from '../helpers/stores.js';

const SEALING_STEPS = ['seal-idempotency-responses', 'seal-interaction-values', 'seal-webhook-messages', 'seal-webhook-secrets'];

async function completedSteps(db: ReturnType<typeof ownerDb>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select name from background_passes where name like 'seal-%' and completed_at is not null order by name`.execute(db);
  return rows.map((row) => row.name);
}

// The pass sealing what releases before 0.8 stored in clear has nothing to do on a new store:
// every row it will hold is sealed as written, so its first start must not walk them.
describe.each(STORES)('the sealing pass on a new store [%s]', (kind) => {
  let testStore: TestStore | undefined;
  afterEach(async () => testStore?.destroy());

  it('is recorded as done when the store has no tenant yet', async () => {
    testStore = await createTestStore(kind, { empty: true });
    const db = ownerDb(testStore.store);
    await migrate(db);
    expect(await completedSteps(db)).toEqual(SEALING_STEPS);
  });

  it('stays to do on a store that holds a tenant (an upgrade with its data)', async () => {
    testStore = await createTestStore(kind, { empty: true });
    const db = ownerDb(testStore.store);
    await migrate(db, { to: '0029_usage_rollup_slot_blocks' });
    await sql`insert into tenants (id, name, created_at) values ('00000000-0000-4000-8000-00000000cccc', 'Upgraded', now())`.execute(db);
    await migrate(db);
    expect(await completedSteps(db)).toEqual([]);
  });
});
