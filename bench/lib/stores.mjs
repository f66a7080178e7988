// The stores a bench runs on: always the embedded store, plus PostgreSQL when
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a server; every store handed out is fresh.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { onCleanup } from './cleanup.mjs';

export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** A fresh embedded store: `{ kind, env, dataDir, dispose }`. */
export async function freshEmbeddedStore() {
  const dataDir = mkdtempSync(join(tmpdir(), 'ugs-bench-'));
  const dispose = onCleanup(() => rmSync(dataDir, { recursive: true, force: true }), { sync: true });
  return { kind: 'pglite', env: { DATA_DIR: dataDir }, dataDir, dispose };
}

/** A fresh database on the PostgreSQL server of `adminUrl`, dropped by `dispose()`: `{ kind, env, url, dispose }`. */
export async function freshPostgresStore(adminUrl = ADMIN_URL) {
  const name = `ugs_bench_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dispose = onCleanup(() => withClient(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`)));
  return { kind: 'postgres', env: { DATABASE_URL: url.toString() }, url: url.toString(), dispose };
}

/** The stores to run on, in order: `[{ label, kind, fresh() }]`; BENCH_STORES=pglite or postgres keeps one. */
export function benchStores() {
  const stores = [{ label: 'embedded store (PGlite)', kind: 'pglite', fresh: freshEmbeddedStore }];
  if (ADMIN_URL) stores.push({ label: 'PostgreSQL', kind: 'postgres', fresh: () => freshPostgresStore(ADMIN_URL) });
  const only = process.env.BENCH_STORES;
  return only ? stores.filter((store) => store.kind === only) : stores;
}

export async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
