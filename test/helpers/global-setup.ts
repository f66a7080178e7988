import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { Kysely, PGliteDialect } from 'kysely';
import type { Database } from '../../src/kernel/tables/database.js';
import { migrate } from '../../src/platform/store/migrate.js';
import { EMBEDDED_DEFAULTS, createPglite } from '../../src/platform/store/pglite.js';
import { scopedConnections } from '../../src/platform/store/scoped-connections.js';
import { openStore } from '../../src/platform/store/store.js';
import { BROWSER_SKIP_NOTICE, chromiumFound } from './browser.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated embedded store's data folder, dumped (`PGlite.dumpDataDir`): a test store starts from it. */
    pgliteSnapshot: string;
    /** A migrated PostgreSQL database each test store is copied from (`create database … template`); '' without TEST_DATABASE_URL. */
    postgresTemplate: string;
  }
}

/**
 * Builds dist/ once per run, for the tests that start the service as a real process, the console
 * (dist/console, served by every app the tests build) and sdk/dist/, for the example receiver
 * the tests start. Then migrates one store of each kind for the test stores to start from: a
 * new embedded store costs an initdb (~2-3 s) and the migrations, once per test file otherwise.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  execFileSync('npx', ['tsc', '-p', 'sdk/tsconfig.json'], { stdio: 'inherit' });
  execFileSync('npm', ['run', 'build:console', '--silent'], { stdio: 'inherit' });
  if (!chromiumFound) console.log(BROWSER_SKIP_NOTICE);

  const folder = mkdtempSync(join(tmpdir(), 'ugs-test-'));
  project.provide('pgliteSnapshot', await migratedPgliteSnapshot(folder));
  const template = process.env.TEST_DATABASE_URL ? await migratedPostgresTemplate(process.env.TEST_DATABASE_URL) : '';
  project.provide('postgresTemplate', template);

  return async () => {
    rmSync(folder, { recursive: true, force: true });
    if (template) await adminQuery(process.env.TEST_DATABASE_URL!, `drop database if exists ${template} with (force)`);
  };
}

async function migratedPgliteSnapshot(folder: string): Promise<string> {
  const pglite = await createPglite(undefined, EMBEDDED_DEFAULTS);
  const db = new Kysely<Database>({ dialect: scopedConnections(new PGliteDialect({ pglite })) });
  try {
    await migrate(db);
    const path = join(folder, 'pglite-migrated.tar');
    writeFileSync(path, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
    return path;
  } finally {
    await db.destroy();
  }
}

async function migratedPostgresTemplate(adminUrl: string): Promise<string> {
  const name = `ugs_test_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = await openStore({ databaseUrl: url.toString(), poolSize: 1 });
  try {
    await migrate(store.db);
  } finally {
    await store.close();
  }
  return name;
}

async function adminQuery(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
