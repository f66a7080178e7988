import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { uuidv7 } from '../../src/kernel/ids.js';
import { openStore, type Store } from '../../src/platform/store/store.js';
import { inFixedScope } from '../../src/platform/store/scoped-connections.js';
import { TABLE_OWNER, inTenants } from '../../src/platform/store/tenant-scope.js';
import { PgBouncer, pgbouncerFound } from '../helpers/pgbouncer.js';
import { createPostgresDatabase } from '../helpers/stores.js';

/** Rounds of each tenant's loop: a read of the whole table and an insert, both under its scope only. */
const ROUNDS = 150;

// Two processes' worth of connections (two pools, each of several clients) share one server
// connection through PgBouncer in transaction mode. A scope kept at session level by one client
// would be the next client's: a read would see the other tenant's rows, an insert be refused.
describe.runIf(process.env.TEST_DATABASE_URL && pgbouncerFound)('tenant scopes through a transaction-pooling PgBouncer [postgres]', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let bouncer: PgBouncer;
  const stores: Store[] = [];
  const tenants = [uuidv7(), uuidv7()];

  beforeAll(async () => {
    database = await createPostgresDatabase(inject('postgresTemplate'));
    const target = new URL(database.url);
    bouncer = await PgBouncer.start({ host: target.hostname, port: Number(target.port || 5432) }, { poolSize: 1 });
    for (let i = 0; i < 2; i += 1) stores.push(await openStore({ databaseUrl: bouncer.urlFor(database.url), poolSize: 4 }));
    const owner = inFixedScope(stores[0]!.db, TABLE_OWNER);
    for (const id of tenants) await owner.insertInto('tenants').values({ id, name: id, created_at: new Date(), updated_at: new Date() }).execute();
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await bouncer?.stop();
    await database?.drop();
  });

  it('every client sees and writes only its own tenant, on one shared server connection', async () => {
    const backends = new Set<number>();
    const foreign: string[] = [];
    const refused: unknown[] = [];
    // Each tenant hammers from both stores, with the application's own tenant filter left out:
    // what a query returns is what the scope on its server connection lets through.
    const loop = (store: Store, tenantId: string) => inTenants([tenantId], async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const { rows } = await sql<{ tenant_id: string; pid: number }>`
          select tenant_id::text, pg_backend_pid() as pid from audit_log union all select null, pg_backend_pid()`.execute(store.db);
        for (const row of rows) {
          backends.add(row.pid);
          if (row.tenant_id !== null && row.tenant_id !== tenantId) foreign.push(`${tenantId} saw ${row.tenant_id}`);
        }
        await store.db.insertInto('audit_log').values({
          tenant_id: tenantId, id: uuidv7(), occurred_at: new Date(), actor_type: 'system', actor_id: null, actor_label: 'hammer',
          action: 'test.hammer', target_type: 'tenant', target_id: tenantId, details: '{}', ip: null, request_id: null,
        }).execute().catch((error: unknown) => refused.push(error));
        if (round % 10 === 0) {
          await store.db.transaction().execute(async (tx) => {
            const { rows: [seen] } = await sql<{ n: number }>`select count(*)::int as n from audit_log where tenant_id <> ${tenantId}`.execute(tx);
            if (seen!.n > 0) foreign.push(`${tenantId} saw ${seen!.n} foreign rows in a transaction`);
          });
        }
      }
    });
    await Promise.all(stores.flatMap((store) => tenants.flatMap((tenantId) => [loop(store, tenantId), loop(store, tenantId)])));

    expect(backends.size).toBe(1);
    expect(foreign.slice(0, 5)).toEqual([]);
    expect(refused.slice(0, 3)).toEqual([]);
    const owner = inFixedScope(stores[0]!.db, TABLE_OWNER);
    const counts = await owner.selectFrom('audit_log').select(['tenant_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('action', '=', 'test.hammer').groupBy('tenant_id').orderBy('tenant_id').execute();
    expect(counts.map((row) => Number(row.n))).toEqual([ROUNDS * 4, ROUNDS * 4]);
  });
});
