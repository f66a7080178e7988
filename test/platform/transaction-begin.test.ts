import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { uuidv7 } from '../../src/kernel/ids.js';
import { openStore, type Store } from '../../src/platform/store/store.js';
import { inFixedScope } from '../../src/platform/store/scoped-connections.js';
import { TABLE_OWNER, inTenants } from '../../src/platform/store/tenant-scope.js';
import { createPostgresDatabase } from '../helpers/stores.js';

// On PostgreSQL a transaction begins with one message: the begin and the tenant scope's
// settings. Here the settings fail: the service connects as a login role that may not become the
// service role. The transaction's statement must not run, the caller gets the settings' error,
// and the pool's one connection is left usable, not in an aborted transaction.
describe.runIf(process.env.TEST_DATABASE_URL)('a transaction whose begin fails [postgres]', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let store: Store;
  const role = `ugs_test_no_member_${randomBytes(4).toString('hex')}`;
  const tenantId = uuidv7();

  const asAdmin = async (statements: string[]) => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      for (const statement of statements) await admin.query(statement);
    } finally {
      await admin.end();
    }
  };

  beforeAll(async () => {
    database = await createPostgresDatabase(inject('postgresTemplate'));
    await asAdmin([
      `create role ${role} login`,
      `grant usage on schema public to ${role}`,
      `grant select, insert on audit_log, tenants to ${role}`,
      `insert into tenants (id, name, created_at, updated_at) values ('${tenantId}', 'begin test', now(), now())`,
    ]);
    const url = new URL(database.url);
    url.username = role;
    store = await openStore({ databaseUrl: url.toString(), poolSize: 1 });
  });

  afterAll(async () => {
    await store?.close();
    await database?.drop();
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`drop role if exists ${role}`).finally(() => admin.end());
  });

  it('runs nothing after a failed begin, answers with its error, and leaves the connection usable', async () => {
    const marker = `after-a-failed-begin-${randomBytes(4).toString('hex')}`;
    for (let round = 0; round < 3; round += 1) {
      const attempt = inTenants([tenantId], () => store.db.transaction().execute(async (tx) => {
        await tx.insertInto('audit_log').values({
          tenant_id: tenantId, id: uuidv7(), occurred_at: new Date(), actor_type: 'system', actor_id: null, actor_label: 'test',
          action: marker, target_type: null, target_id: null, details: '{}', ip: null, request_id: null,
        }).execute();
      }));
      await expect(attempt).rejects.toThrow(/permission denied to set role/);
      // The same (only) connection answers the next work as if nothing happened.
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from audit_log where action = ${marker}`
        .execute(inFixedScope(store.db, TABLE_OWNER));
      expect(rows[0]!.n).toBe(0);
    }
  });
});
