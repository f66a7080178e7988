import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore, type Store, type StoreKind } from '../../src/platform/store/store.js';
import { inFixedScope } from '../../src/platform/store/scoped-connections.js';
import { TABLE_OWNER } from '../../src/platform/store/tenant-scope.js';

/** The stores every storage test runs on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const STORES: StoreKind[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface TestStore {
  store: Store;
  /** The URL of the PostgreSQL database (postgres only), for child processes. */
  databaseUrl?: string;
  destroy(): Promise<void>;
}

/**
 * A PostgreSQL database of its own for one test file, dropped afterwards: empty, or a copy of
 * `template` (a database no one is connected to).
 */
export async function createPostgresDatabase(template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `ugs_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/**
 * A store of its own for one test file: already migrated (a copy of the one the global setup
 * migrated), or `empty` for a test of the migrations themselves.
 */
export async function createTestStore(kind: StoreKind, options: { empty?: boolean } = {}): Promise<TestStore> {
  if (kind === 'pglite') {
    const initialData = options.empty ? undefined : new Blob([readFileSync(inject('pgliteSnapshot'))], { type: 'application/x-gzip' });
    const store = await openStore({ initialData });
    return { store, destroy: () => store.close() };
  }
  const database = await createPostgresDatabase(options.empty ? undefined : inject('postgresTemplate'));
  const store = await openStore({ databaseUrl: database.url, poolSize: 5 });
  return {
    store,
    databaseUrl: database.url,
    destroy: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/** The store's database as the tables' owner, every tenant's rows visible: for a test's own setup and checks. */
export function ownerDb(store: Store) {
  return inFixedScope(store.db, TABLE_OWNER);
}

/** The same store, its queries run as the tables' owner (for tests that hand a Store to their own helpers). */
export function asOwner(store: Store): Store {
  return { ...store, db: ownerDb(store) };
}
