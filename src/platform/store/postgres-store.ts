import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../../kernel/tables/database.js';
import { transactionMigrationLock } from './migration-lock.js';
import { listenPostgres } from './postgres-listen.js';
import { scopedConnections } from './scoped-connections.js';
import type { Store } from './store-contract.js';
import { asTableOwner } from './tenant-scope.js';

export interface PostgresOptions {
  databaseUrl: string;
  listenUrl: string | undefined;
  poolSize: number;
  poolTimeoutMs: number;
}

/** A session connection is closed after this long unused (the table upkeep uses it every 30 s at most). */
const SESSION_IDLE_MS = 10_000;

/**
 * PostgreSQL through a `pg` pool. The pool's connections may go through a transaction-pooling
 * PgBouncer: every scope is set per transaction (scoped-connections.ts), and nothing the service
 * needs outlives one on a server connection. LISTEN and session work go to `listenUrl`, a direct
 * connection, when it is set.
 */
export async function openPostgres(options: PostgresOptions): Promise<Store> {
  const pool = quietPool({ connectionString: options.databaseUrl, max: options.poolSize, connectionTimeoutMillis: options.poolTimeoutMs });
  const db = new Kysely<Database>({
    dialect: transactionMigrationLock(scopedConnections(new PostgresDialect({ pool }), 'transaction')),
  });
  const sessionUrl = options.listenUrl ?? options.databaseUrl;
  let session: Kysely<Database> | undefined;
  return {
    kind: 'postgres',
    db,
    // As the connecting role: the service role does not exist before the first migration.
    ping: async () => {
      await asTableOwner(() => sql`select 1`.execute(db));
    },
    listen: async (channel, onNotify) => listenPostgres(sessionUrl, channel, onNotify),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    withSession: (work) => {
      session ??= new Kysely<Database>({
        dialect: new PostgresDialect({
          pool: quietPool({ connectionString: sessionUrl, max: 1, idleTimeoutMillis: SESSION_IDLE_MS, connectionTimeoutMillis: options.poolTimeoutMs }),
        }),
      });
      return session.connection().execute(work);
    },
    close: async () => {
      await Promise.all([db.destroy(), session?.destroy()]);
    },
  };
}

/** A client losing its server must not crash the process; the query in progress reports it. */
function quietPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
