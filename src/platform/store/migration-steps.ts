import { type Kysely, sql } from 'kysely';
import { LOCK_IDS } from '../../kernel/lock-ids.js';
import type { ServiceMigration } from './migrations/index.js';
import { retryingLockConflicts, setLockTimeout } from './migrations/online.js';

/**
 * The migrations' own tables, created before the first migration: what was applied (the table
 * format of the Kysely migrator earlier releases used) and the leases (migration 0020 creates it
 * if a database never met this step), whose row `migrations` says who migrates.
 */
export async function prepareBookkeeping(db: Kysely<any>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_IDS.migrations})`.execute(trx);
    await sql`create table if not exists schema_migrations (
      name varchar(255) not null primary key,
      timestamp varchar(255) not null
    )`.execute(trx);
    await sql`create table if not exists service_leases (
      name text not null,
      key text not null,
      holder uuid not null,
      expires_at timestamptz not null,
      constraint service_leases_pk primary key (name, key)
    )`.execute(trx);
  });
}

export async function appliedMigrations(db: Kysely<any>): Promise<Set<string>> {
  const { rows } = await sql<{ name: string }>`select name from schema_migrations`.execute(db);
  return new Set(rows.map((row) => row.name));
}

/**
 * Applies one migration; false when another process recorded it first. A transactional one runs
 * with its record in one transaction, under the migrations' lock (so it is applied exactly once
 * whatever the lease did) and a short lock timeout; one that waited too long for a lock, or was
 * chosen to break a deadlock, is rolled back and tried again. One marked `transactional = false`
 * runs its statements one by one and is recorded after: each of them must be safe to run again.
 */
export async function applyMigration(db: Kysely<any>, name: string, migration: ServiceMigration): Promise<boolean> {
  if (migration.transactional === false) {
    await migration.up(db);
    const { rows } = await sql`insert into schema_migrations (name, timestamp) values (${name}, ${new Date().toISOString()})
      on conflict (name) do nothing returning name`.execute(db);
    return rows.length === 1;
  }
  return retryingLockConflicts(`Migration ${name}`, () => db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_IDS.migrations})`.execute(trx);
    if ((await appliedMigrations(trx)).has(name)) return false;
    await setLockTimeout(trx);
    await migration.up(trx);
    await sql`insert into schema_migrations (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(trx);
    return true;
  }));
}
