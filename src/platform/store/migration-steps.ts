import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { LOCK_IDS } from '../../kernel/lock-ids.js';
import type { ServiceMigration } from './migrations/index.js';

/**
 * How long a migration's statement may wait for a table's lock. A waiting ALTER TABLE queues
 * every later writer of the table behind it, so it gives up soon (behind a long transaction, a
 * nightly pg_dump say) and the whole migration is tried again a little later.
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 500;
const LOCK_ATTEMPTS = 30;
const MAX_RETRY_DELAY_MS = 5_000;

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
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${LOCK_IDS.migrations})`.execute(trx);
        if ((await appliedMigrations(trx)).has(name)) return false;
        await sql`set local lock_timeout = ${sql.lit(`${MIGRATION_LOCK_TIMEOUT_MS}ms`)}`.execute(trx);
        await migration.up(trx);
        await sql`insert into schema_migrations (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(trx);
        return true;
      });
    } catch (error) {
      if (!isLockConflict(error)) throw error;
      if (attempt === LOCK_ATTEMPTS) {
        throw new Error(`Migration ${name} could not take the locks it needs in ${LOCK_ATTEMPTS} tries of ${MIGRATION_LOCK_TIMEOUT_MS} ms: `
          + 'a long transaction holds a table it changes (see pg_stat_activity); start again once it ends.');
      }
      await sleep(Math.min(MAX_RETRY_DELAY_MS, 100 * 2 ** attempt));
    }
  }
}

/** A lock wait given up (lock_timeout), or PostgreSQL's way out of a deadlock with a writer: both are tried again. */
function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === '55P03' || code === '40P01';
}
