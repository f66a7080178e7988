import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, type RawBuilder, type Transaction, sql } from 'kysely';

/**
 * How long a migration's statement may wait for a table's lock. A waiting ALTER TABLE queues
 * every later writer of the table behind it, so it gives up soon (behind a long transaction, a
 * nightly pg_dump say) and its transaction is tried again a little later.
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 500;
const LOCK_ATTEMPTS = 30;
const MAX_RETRY_DELAY_MS = 5_000;

/**
 * Runs `attempt` again while PostgreSQL gives up one of its lock waits (lock_timeout) or cancels it
 * to break a deadlock with a writer, after a growing pause; `what` names it in the final error.
 */
export async function retryingLockConflicts<T>(what: string, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isLockConflict(error)) throw error;
      if (tries === LOCK_ATTEMPTS) {
        throw new Error(`${what} could not take the locks it needs in ${LOCK_ATTEMPTS} tries of ${MIGRATION_LOCK_TIMEOUT_MS} ms: `
          + 'a long transaction holds a table it changes (see pg_stat_activity); start again once it ends.');
      }
      await sleep(Math.min(MAX_RETRY_DELAY_MS, 100 * 2 ** tries));
    }
  }
}

/**
 * One step of a migration marked `transactional = false` that changes the catalog of a table
 * writers use: a transaction of its own with the migrations' short lock timeout, tried again on a
 * lock conflict. It must stay short (no scan of a large table) and safe to run again.
 */
export async function shortTransaction<T>(db: Kysely<any>, what: string, work: (trx: Transaction<any>) => Promise<T>): Promise<T> {
  return retryingLockConflicts(what, () => db.transaction().execute(async (trx) => {
    await setLockTimeout(trx);
    return work(trx);
  }));
}

export async function setLockTimeout(trx: Transaction<any>): Promise<void> {
  await sql`set local lock_timeout = ${sql.lit(`${MIGRATION_LOCK_TIMEOUT_MS}ms`)}`.execute(trx);
}

/**
 * Builds an index without blocking the table's writers (`CREATE INDEX CONCURRENTLY`), for a
 * migration marked `transactional = false`. A build that failed or was interrupted leaves an
 * invalid index behind: it is dropped and built again, so the step can always run again.
 */
export async function createIndexConcurrently(db: Kysely<any>, name: string, definition: RawBuilder<unknown>): Promise<void> {
  const { rows } = await sql<{ valid: boolean }>`select i.indisvalid as valid
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname = ${name} and c.relnamespace = current_schema()::regnamespace`.execute(db);
  if (rows[0]?.valid === true) return;
  if (rows[0]) await sql`drop index concurrently if exists ${sql.id(name)}`.execute(db);
  await sql`create index concurrently if not exists ${sql.id(name)} ${definition}`.execute(db);
}

/** A lock wait given up (lock_timeout), or PostgreSQL's way out of a deadlock with a writer. */
function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === '55P03' || code === '40P01';
}
