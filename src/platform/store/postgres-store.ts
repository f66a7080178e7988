import { Kysely, PostgresDialect, sql } from 'kysely';
import { parseDatabaseUrl } from '../../config/database-url.js';
import type { Database } from '../../kernel/tables/database.js';
import { HostPool } from './host-pool.js';
import { listenPostgres } from './postgres-listen.js';
import { ReadReplica } from './read-replica.js';
import { scopedConnections } from './scoped-connections.js';
import type { Store } from './store-contract.js';
import { asTableOwner } from './tenant-scope.js';

export interface PostgresOptions {
  databaseUrl: string;
  listenUrl: string | undefined;
  readUrl: string | undefined;
  poolSize: number;
  poolTimeoutMs: number;
}

/** A session connection is closed after this long unused (the table upkeep uses it every 30 s at most). */
const SESSION_IDLE_MS = 10_000;

/**
 * PostgreSQL through a pool on the primary of `databaseUrl`'s hosts (host-pool.ts), which may
 * go through a transaction-pooling PgBouncer: every scope is set per transaction
 * (scoped-connections.ts), and nothing the service needs outlives one on a server connection.
 * LISTEN and session work go to `listenUrl`, a direct connection, when it is set; reads of
 * lists, stats, exports and search to `readUrl`'s replica (read-replica.ts).
 */
export async function openPostgres(options: PostgresOptions): Promise<Store> {
  const target = parseDatabaseUrl(options.databaseUrl);
  const sessionTarget = options.listenUrl ? parseDatabaseUrl(options.listenUrl) : target;
  // Pipelining: a statement's begin, the statement and its commit go in one round trip (scoped-connections.ts).
  const pool = new HostPool(target, { max: options.poolSize, connectionTimeoutMillis: options.poolTimeoutMs, pipeline: true });
  const db = new Kysely<Database>({
    dialect: scopedConnections(new PostgresDialect({ pool }), 'transaction'),
  });
  const replica = options.readUrl
    ? new ReadReplica(parseDatabaseUrl(options.readUrl),
      { max: options.poolSize, connectionTimeoutMillis: options.poolTimeoutMs, pipeline: true }, pool)
    : undefined;
  let session: Kysely<Database> | undefined;
  const store: Store = {
    kind: 'postgres',
    db,
    // As the connecting role: the service role does not exist before the first migration.
    ping: async () => {
      await asTableOwner(() => sql`select 1`.execute(db));
    },
    listen: async (channel, onNotify) => listenPostgres(sessionTarget, channel, onNotify),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async reader() {
      return replica ? replica.reader(this.db) : this.db;
    },
    ...(replica && { replica: replica.stats }),
    withSession: (work) => {
      session ??= new Kysely<Database>({
        dialect: new PostgresDialect({
          pool: new HostPool(sessionTarget, { max: 1, idleTimeoutMillis: SESSION_IDLE_MS, connectionTimeoutMillis: options.poolTimeoutMs }),
        }),
      });
      return session.connection().execute(work);
    },
    close: async () => {
      await Promise.all([db.destroy(), session?.destroy(), replica?.close()]);
    },
  };
  return store;
}
