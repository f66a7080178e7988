import type { Kysely } from 'kysely';
import type { PoolStats } from './connection-counts.js';
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
