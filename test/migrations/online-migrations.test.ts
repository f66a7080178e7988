import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, MigrationRefusedError } from '../../src/platform/store/migrate.js';
import { migrations, type ServiceMigration } from '../../src/platform/store/migrations/index.js';
import { createIndexConcurrently } from '../../src/platform/store/migrations/online.js';
import { SERVICE_VERSION } from '../../src/kernel/version.js';
import { createTestStore, ownerDb, STORES, type TestStore } from '../helpers/stores.js';

const step = (up: (db: Kysely<any>) => Promise<void>, transactional?: boolean): ServiceMigration =>
  (transactional === undefined ? { up } : { up, transactional });
const tableExists = async (db: Kysely<any>, name: string) =>
  (await sql<{ found: string | null }>`select to_regclass(${name})::text as found`.execute(db)).rows[0]?.found != null;
const recorded = async (db: Kysely<any>) =>
  (await sql<{ name: string }>`select name from schema_migrations order by name`.execute(db)).rows.map((row) => row.name);

describe.each(STORES)('migrations one at a time [%s]', (kind) => {
  let testStore: TestStore;
  afterEach(async () => testStore?.destroy());

  it('keeps the migrations before a failing one, and none of the failing one', async () => {
    testStore = await createTestStore(kind);
    const db = ownerDb(testStore.store);
    const failing = {
      ...migrations,
      '9001_first': step(async (trx) => { await sql`create table first_step (id int)`.execute(trx); }),
      '9002_broken': step(async (trx) => {
        await sql`create table half_done (id int)`.execute(trx);
        await sql`select * from no_such_table`.execute(trx);
      }),
    };
    await expect(migrate(db, { migrations: failing })).rejects.toThrow(/no_such_table/);
    expect(await tableExists(db, 'first_step')).toBe(true);
    expect(await tableExists(db, 'half_done')).toBe(false);
    expect(await recorded(db)).toContain('9001_first');
    expect(await recorded(db)).not.toContain('9002_broken');

    const fixed = { ...failing, '9002_broken': step(async (trx) => { await sql`create table half_done (id int)`.execute(trx); }) };
    expect((await migrate(db, { migrations: fixed })).applied).toEqual(['9002_broken']);
    expect(await tableExists(db, 'half_done')).toBe(true);
  });

  it('builds an index concurrently outside a transaction, and builds again one a failed build left invalid', async () => {
    testStore = await createTestStore(kind);
    const db = ownerDb(testStore.store);
    await sql`create table accounts (id int, email text)`.execute(db);
    await sql`insert into accounts select n, 'user' || (n % 50) || '@example.test' from generate_series(1, 200) as n`.execute(db);
    const plainIndexes = step(async (conn) => {
      await createIndexConcurrently(conn, 'accounts_email_idx', sql`on accounts (email)`);
      await sql`create unique index concurrently if not exists accounts_id_idx on accounts (id)`.execute(conn);
    }, false);
    const unique = step(async (conn) => createIndexConcurrently(conn, 'accounts_email_unique', sql`on accounts (email) where id > 0`), false);
    const withUnique = { ...migrations, '9001_indexes': plainIndexes, '9002_unique': step(async (conn) => {
      // Unique over duplicates: the build fails and leaves its index behind, invalid.
      await sql`create unique index concurrently if not exists accounts_email_unique on accounts (email)`.execute(conn);
    }, false) };
    await expect(migrate(db, { migrations: withUnique })).rejects.toThrow(/could not create unique index|duplicate/i);
    expect(await recorded(db)).toContain('9001_indexes');
    const valid = async (name: string) => (await sql<{ valid: boolean }>`select i.indisvalid as valid from pg_index i
      join pg_class c on c.oid = i.indexrelid where c.relname = ${name}`.execute(db)).rows[0]?.valid;
    expect(await valid('accounts_email_idx')).toBe(true);
    expect(await valid('accounts_email_unique')).toBe(false);

    expect((await migrate(db, { migrations: { ...withUnique, '9002_unique': unique } })).applied).toEqual(['9002_unique']);
    expect(await valid('accounts_email_unique')).toBe(true);
  });

  it('rolls back and tries again a migration chosen to break a deadlock, as PostgreSQL answers one', async () => {
    testStore = await createTestStore(kind);
    const db = ownerDb(testStore.store);
    let attempts = 0;
    const deadlocking = { ...migrations, '9001_deadlocks_once': step(async (trx) => {
      await sql`create table retried (id int)`.execute(trx);
      attempts += 1;
      if (attempts === 1) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    }) };
    expect((await migrate(db, { migrations: deadlocking })).applied).toEqual(['9001_deadlocks_once']);
    expect(attempts).toBe(2);
    expect(await tableExists(db, 'retried')).toBe(true);
  });

  it('starts on a database a newer release of this major migrated further, and refuses one with unknown migrations among its own', async () => {
    testStore = await createTestStore(kind);
    const db = ownerDb(testStore.store);
    const newer = { ...migrations, '9001_newer': step(async (trx) => { await sql`create table newer_release (id int)`.execute(trx); }) };
    await migrate(db, { migrations: newer, version: 'v0.999.0' });
    expect((await migrate(db)).applied).toEqual([]);
    const stored = await db.selectFrom('service_meta').select('value').where('key', '=', 'version').executeTakeFirst();
    expect(stored?.value).toBe('v0.999.0');

    await sql`insert into schema_migrations (name, timestamp) values ('0001_zzz_elsewhere', '2026-01-01')`.execute(db);
    await expect(migrate(db)).rejects.toThrow(MigrationRefusedError);
    expect(SERVICE_VERSION).not.toBe('v0.999.0');
  });
});

describe.runIf(STORES.includes('postgres'))('a migration behind a long transaction [postgres]', () => {
  let testStore: TestStore;
  afterEach(async () => testStore?.destroy());

  it('gives up its lock wait again and again so writers go on, and applies once the transaction ends', async () => {
    testStore = await createTestStore('postgres');
    const db = ownerDb(testStore.store);
    await sql`create table busy (id serial primary key, at timestamptz not null default now())`.execute(db);
    const reader = new pg.Client({ connectionString: testStore.databaseUrl });
    const writer = new pg.Client({ connectionString: testStore.databaseUrl });
    await Promise.all([reader.connect(), writer.connect()]);
    // A writer stuck behind the ALTER TABLE fails the test rather than hanging it.
    await writer.query(`set statement_timeout = '3s'`);
    try {
      // An open transaction that read the table (pg_dump holds one for hours): ACCESS SHARE until it ends.
      await reader.query('begin isolation level repeatable read');
      await reader.query('select count(*) from busy');
      const alter = { ...migrations, '9001_alter_busy': step(async (trx) => {
        await sql`alter table busy add column note text`.execute(trx);
      }) };
      let migrated = false;
      const migration = migrate(db, { migrations: alter }).then((result) => { migrated = true; return result; });

      // A waiting ALTER TABLE queues every writer behind it; given up every 500 ms, it lets them through in between.
      let written = 0;
      const until = Date.now() + 4_000;
      while (Date.now() < until) {
        await writer.query('insert into busy default values');
        written += 1;
        await sleep(20);
      }
      expect(migrated).toBe(false);
      expect(written).toBeGreaterThan(10);

      await reader.query('commit');
      expect((await migration).applied).toEqual(['9001_alter_busy']);
      const columns = await writer.query(`select column_name from information_schema.columns where table_name = 'busy' order by 1`);
      expect(columns.rows.map((row) => row.column_name)).toEqual(['at', 'id', 'note']);
    } finally {
      await Promise.all([reader.end(), writer.end()]);
    }
  });
});
