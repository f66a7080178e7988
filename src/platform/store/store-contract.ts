import type { Kysely } from 'kysely';
import type { PoolStats } from './connection-counts.js';
import type { Database } from '../../kernel/tables/database.js';

/** Where a read went, and the replica's lag (the metrics). */
export interface ReplicaStats {
  reads: { replica: number; primary: number };
  lag(): Promise<{ bytes: number; seconds: number } | undefined>;
}

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
  /**
   * The database to read lists, stats, exports and search from: DATABASE_READ_URL's replica once
   * it has replayed every commit made before this call, else `db` (read-replica.ts): the store's
   * `db` as it is then (a test may wrap it).
   */
  reader(): Promise<Kysely<Database>>;
  /** Set with a read replica: where reads went and its lag (the metrics). */
  replica?: ReplicaStats;
  /**
   * Runs `work` on a session of its own, as the connecting role (the tables' owner): for what
   * must outlive a transaction on one server connection (VACUUM with its pacing setting). On
   * PostgreSQL, DATABASE_LISTEN_URL's direct connection when it is set.
   */
  withSession<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export class StoreUnavailableError extends Error {
  constructor() {
    super('The store is closed');
  }
}
