import { type Dialect, PostgresAdapter, sql } from 'kysely';
import { LOCK_IDS } from '../../kernel/lock-ids.js';

/**
 * Kysely's PostgreSQL migrator takes a session advisory lock, which a transaction-pooling
 * PgBouncer would leave on a server connection (and a failed migration with it, never released).
 * Here it is the migrating transaction's own (migrate.ts always runs the migrator in one), and
 * ends with it.
 */
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Parameters<PostgresAdapter['acquireMigrationLock']>[0]): Promise<void> {
    await sql`select pg_advisory_xact_lock(${LOCK_IDS.migrations})`.execute(db);
  }

  override async releaseMigrationLock(): Promise<void> {
    // Released by the transaction's end.
  }
}

export function transactionMigrationLock(dialect: Dialect): Dialect {
  return {
    createDriver: () => dialect.createDriver(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => new TransactionLockAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
