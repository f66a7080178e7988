import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/platform/store/migrate.js';
import { openStore } from '../../src/platform/store/store.js';
import { BROWSER_SKIP_NOTICE, chromiumFound } from './browser.js';

/** Where scripts/build-embedded-seed.mjs writes the seed of the built code. */
const EMBEDDED_SEED_BUILT = join(import.meta.dirname, '../../dist/embedded-store-seed.tar.gz');

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated embedded store's data folder, archived: the build's store seed (dist/embedded-store-seed.tar.gz), a test store starts from it. */
    pgliteSnapshot: string;
    /** A migrated PostgreSQL database each test store is copied from (`create database … template`); '' without TEST_DATABASE_URL. */
    postgresTemplate: string;
  }
}

/**
 * Builds dist/ once per run (`npm run build`; CI's checks after the tests read it too), for the
 * tests that start the service as a real process (with the store seed a first start unpacks), the
 * console (dist/console, served by every app the tests build) and sdk/dist/, for the example
 * receiver the tests start. Then one migrated store of each
 * kind for the test stores to start from: a new embedded store costs an initdb (~2-3 s) and the
 * migrations, once per test file otherwise. The embedded one is the build's store seed.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  execFileSync('npx', ['tsc', '-p', 'sdk/tsconfig.json'], { stdio: 'inherit' });
  if (!chromiumFound) console.log(BROWSER_SKIP_NOTICE);

  project.provide('pgliteSnapshot', EMBEDDED_SEED_BUILT);
  const template = process.env.TEST_DATABASE_URL ? await migratedPostgresTemplate(process.env.TEST_DATABASE_URL) : '';
  project.provide('postgresTemplate', template);

  return async () => {
    if (template) await adminQuery(process.env.TEST_DATABASE_URL!, `drop database if exists ${template} with (force)`);
  };
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
