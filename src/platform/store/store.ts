import { mkdirSync } from 'node:fs';
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { countingConnections, type PoolStats } from './connection-counts.js';
import { scopedConnections } from './scoped-connections.js';
import { asTableOwner } from './tenant-scope.js';
import { EMBEDDED_DEFAULTS, createPglite, type EmbeddedSettings, type NewStoreSource } from './pglite.js';
import { holdDataDir } from './data-dir-holder.js';
import { backupRequests } from './backup-requests.js';
import type { Database } from '../../kernel/tables/database.js';

export type StoreKind = 'pglite' | 'postgres';

/** The database the service runs on: embedded PGlite or a PostgreSQL server, behind one Kysely. */
export interface Store {
  kind: StoreKind;
  db: Kysely<Database>;
  /** Resolves when the store answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  /** Calls `onNotify` for each NOTIFY on `channel`; returns a function that stops listening. */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** Connections open, idle, and queries waiting for one (the metrics). */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  /** Folder of the embedded store; undefined keeps it in memory (tests). */
  dataDir?: string | undefined;
  poolSize?: number;
  /** Longest a query waits for a free PostgreSQL connection before failing as unavailable. */
  poolTimeoutMs?: number;
  /** Embedded store only; defaults in EMBEDDED_DEFAULTS. */
  embedded?: Partial<EmbeddedSettings>;
  /** Embedded store in memory only: start from this dumped data folder (`PGlite.dumpDataDir`) instead of initdb's. */
  initialData?: Blob;
  /** Embedded store in a new folder: the store seed to unpack (default: the build's, EMBEDDED_SEED; null: initdb). */
  seed?: string | null;
}

// bigint (count(*), bigserial) comes back from pg as a string; numbers are what the code expects.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10, options.poolTimeoutMs ?? 5000);
  return openPglite(options.dataDir, {
    durableCommits: options.embedded?.durableCommits ?? EMBEDDED_DEFAULTS.durableCommits,
    sharedBuffersMb: options.embedded?.sharedBuffersMb ?? EMBEDDED_DEFAULTS.sharedBuffersMb,
  }, { initialData: options.initialData, seed: options.seed });
}

/** The folder is held (data-dir-holder.ts) before it is opened, and until the store is closed. */
async function openPglite(dataDir: string | undefined, settings: EmbeddedSettings, source: NewStoreSource): Promise<Store> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const hold = dataDir ? await holdDataDir(dataDir) : undefined;
  const pglite = await createPglite(dataDir, settings, source).catch(async (error: unknown) => {
    await hold?.release();
    throw error;
  });
  const counted = countingConnections(scopedConnections(new PGliteDialect({ pglite })));
  const db = new Kysely<Database>({ dialect: counted.dialect });
  hold?.serve(backupRequests(db));
  return {
    kind: 'pglite',
    db,
    ping: async () => {
      if (pglite.closed) throw new StoreUnavailableError();
      await asTableOwner(() => sql`select 1`.execute(db));
    },
    listen: async (channel, onNotify) => pglite.listen(channel, onNotify),
    poolStats: counted.stats,
    close: async () => {
      await db.destroy();
      await hold?.release();
    },
  };
}

async function openPostgres(connectionString: string, max: number, connectionTimeoutMillis: number): Promise<Store> {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis });
  // A client losing its server must not crash the process; the query in progress reports it.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: scopedConnections(new PostgresDialect({ pool })) });
  return {
    kind: 'postgres',
    db,
    // As the connecting role: the service role does not exist before the first migration.
    ping: async () => {
      await asTableOwner(() => sql`select 1`.execute(db));
    },
    listen: async (channel, onNotify) => listenPostgres(connectionString, channel, onNotify),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}

/** A dedicated connection for LISTEN that reconnects if the server drops it. */
async function listenPostgres(connectionString: string, channel: string, onNotify: () => void) {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const next = new pg.Client({ connectionString });
    next.on('notification', onNotify);
    next.on('error', () => scheduleReconnect());
    try {
      await next.connect();
      await next.query(`LISTEN "${channel.replaceAll('"', '')}"`);
      client = next;
      onNotify(); // anything sent while disconnected is picked up by the caller's poll
    } catch {
      await next.end().catch(() => {});
      scheduleReconnect();
    }
  };
  const scheduleReconnect = () => {
    if (stopped || retry) return;
    client?.end().catch(() => {});
    client = undefined;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1000);
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

export class StoreUnavailableError extends Error {
  constructor() {
    super('The store is closed');
  }
}
