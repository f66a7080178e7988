import { mkdirSync } from 'node:fs';
import { Kysely, PGliteDialect, sql } from 'kysely';
import pg from 'pg';
import { countingConnections } from './connection-counts.js';
import { type Store, StoreUnavailableError } from './store-contract.js';
import { inFixedScope, scopedConnections } from './scoped-connections.js';
import { TABLE_OWNER, asTableOwner } from './tenant-scope.js';
import { openPostgres } from './postgres-store.js';
import { EMBEDDED_DEFAULTS, createPglite, type EmbeddedSettings, type NewStoreSource } from './pglite.js';
import { holdDataDir } from './data-dir-holder.js';
import { backupRequests } from './backup-requests.js';
import type { Database } from '../../kernel/tables/database.js';

export type { Store, StoreKind } from './store-contract.js';
export { StoreUnavailableError } from './store-contract.js';

export interface StoreOptions {
  databaseUrl?: string | undefined;
  /** A direct connection (not through a transaction pooler) for LISTEN and session work; unset: databaseUrl. */
  listenUrl?: string | undefined;
  /** A streaming replica for lists, stats, exports and search; unset: databaseUrl. */
  readUrl?: string | undefined;
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
  if (options.databaseUrl) {
    return openPostgres({
      databaseUrl: options.databaseUrl, listenUrl: options.listenUrl, readUrl: options.readUrl, poolSize: options.poolSize ?? 10,
      poolTimeoutMs: options.poolTimeoutMs ?? 5000,
    });
  }
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
  const store: Store = {
    kind: 'pglite',
    db,
    ping: async () => {
      if (pglite.closed) throw new StoreUnavailableError();
      await asTableOwner(() => sql`select 1`.execute(db));
    },
    listen: async (channel, onNotify) => pglite.listen(channel, onNotify),
    poolStats: counted.stats,
    async reader() {
      return this.db;
    },
    // One connection, that nothing else shares: its session is the one every query runs on.
    withSession: (work) => inFixedScope(db, TABLE_OWNER).connection().execute(work),
    close: async () => {
      await db.destroy();
      await hold?.release();
    },
  };
  return store;
}
