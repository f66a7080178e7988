#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { MigrationRefusedError, migrate } from './db/migrate.js';
import { openStore } from './db/store.js';
import { AppError } from './lib/errors.js';
import { runWorkers, serve } from './main.js';
import { createTenant } from './modules/tenants/tenants.service.js';
import { SERVICE_VERSION } from './version.js';

const USAGE = `usage: ugs <command>
  serve                                   run the API and its workers (default)
  worker                                  run only the background workers (webhook deliveries, mail, counts)
  migrate                                 apply migrations, including those of a new major version
  tenant create --name NAME --admin-email EMAIL [--admin-password PASSWORD]
  version                                 print the release version`;

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'version') {
    process.stdout.write(`${SERVICE_VERSION}\n`);
    return 0;
  }
  const config = loadConfig();
  if (command === 'serve') {
    await serve(config);
    return -1; // keeps running
  }
  if (command === 'worker') {
    await runWorkers(config);
    return -1; // keeps running
  }
  const store = await openStore({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir,
    poolSize: config.databasePoolSize, poolTimeoutMs: config.databasePoolTimeoutMs,
    embedded: { durableCommits: config.embeddedDurableCommits, sharedBuffersMb: config.embeddedSharedBuffersMb },
  });
  try {
    if (command === 'migrate') {
      const { applied } = await migrate(store.db, { allowMajorUpgrade: true });
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'the schema is up to date\n');
      return 0;
    }
    if (command === 'tenant' && rest[0] === 'create') {
      const { values } = parseArgs({
        args: rest.slice(1),
        options: { name: { type: 'string' }, 'admin-email': { type: 'string' }, 'admin-password': { type: 'string' } },
      });
      if (!values.name || !values['admin-email']) throw new UsageError('tenant create needs --name and --admin-email');
      await migrate(store.db);
      const password = values['admin-password'] ?? generatedPassword();
      const created = await createTenant(store.db, {
        name: values.name, adminEmail: values['admin-email'], adminPassword: password,
      }, new Date());
      process.stdout.write(`${JSON.stringify({
        tenant_id: created.tenantId,
        admin_id: created.adminId,
        admin_email: values['admin-email'],
        ...(values['admin-password'] ? {} : { admin_password: password }),
      }, null, 2)}\n`);
      return 0;
    }
    throw new UsageError(`unknown command: ${[command, ...rest].join(' ')}`);
  } finally {
    await store.close();
  }
}

function generatedPassword(): string {
  return `Aa1${crypto.getRandomValues(new Uint8Array(16)).reduce((s, b) => s + b.toString(16).padStart(2, '0'), '')}`;
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) process.stderr.write(`${error.message}\n${USAGE}\n`);
    else if (error instanceof ConfigError || error instanceof MigrationRefusedError || error instanceof AppError) {
      process.stderr.write(`${error.message}\n`);
    } else process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  },
);
