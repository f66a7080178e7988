#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from './config/config.js';
import { connectStore } from './platform/store/connect.js';
import type { Store } from './platform/store/store.js';
import { MigrationRefusedError, migrate } from './platform/store/migrate.js';
import { AppError } from './kernel/errors.js';
import { StartupError } from './kernel/startup-error.js';
import { createTenant } from './modules/tenants/tenants.service.js';
import { SERVICE_VERSION } from './kernel/version.js';
import { holdPort } from './edge/port-hold.js';

// The API and its workers are imported when a command needs them: help and wrong arguments
// answer in a fraction of the time that loading them takes (~1 s).

/** Commands that run and return their exit code; `serve` and `worker` keep the process running. */
function program(run: (work: () => Promise<number | 'running'>) => void): Command {
  const cli = new Command('ugs')
    .description('Usage-governance service: the API, its workers, and administration commands.')
    .version(SERVICE_VERSION, '-v, --version', 'print the release version')
    .helpCommand('help [command]', 'print the help of a command')
    .showHelpAfterError('(run `ugs help` for the commands)')
    .exitOverride()
    .addHelpText('after', '\nConfiguration comes from environment variables (README.md, "Configuration").');

  cli.command('serve')
    .description('run the API and its background workers (the default command)')
    .action(() => run(async () => {
      const config = loadConfig();
      // Before loading the API (~1 s): a port in use fails at once.
      const port = await holdPort(config.server.host, config.server.port);
      await (await import('./main.js')).serve(config, port);
      return 'running';
    }));

  cli.command('worker')
    .description('run only the background workers (webhook deliveries, mail, counts, history purge)')
    .action(() => run(async () => {
      const config = loadConfig();
      await (await import('./main.js')).runWorkers(config);
      return 'running';
    }));

  cli.command('migrate')
    .description('apply the pending migrations, including those of a new major version')
    .action(() => run(() => withStore(async (store) => {
      const { applied } = await migrate(store.db, { allowMajorUpgrade: true });
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'the schema is up to date\n');
    })));

  cli.command('version').description('print the release version').action(() => run(async () => {
    process.stdout.write(`${SERVICE_VERSION}\n`);
    return 0;
  }));

  const tenant = cli.command('tenant').description('manage tenants');
  tenant.command('create')
    .description('create a tenant and its first admin')
    .requiredOption('--name <name>', "the tenant's name")
    .requiredOption('--admin-email <email>', "the first admin's email")
    .option('--admin-password <password>', 'the first admin\'s password (default: generated and printed once)')
    .action((options: { name: string; adminEmail: string; adminPassword?: string }) => run(() => withStore(async (store) => {
      await migrate(store.db);
      const password = options.adminPassword ?? generatedPassword();
      const created = await createTenant(store.db, {
        name: options.name, adminEmail: options.adminEmail, adminPassword: password,
      }, new Date());
      process.stdout.write(`${JSON.stringify({
        tenant_id: created.tenantId,
        admin_id: created.adminId,
        admin_email: options.adminEmail,
        ...(options.adminPassword ? {} : { admin_password: password }),
      }, null, 2)}\n`);
    })));
  const keys = cli.command('keys').description('manage the data encryption key (docs/data-protection.md)');
  keys.command('rotate')
    .description('wrap every tenant\'s keys under a new master key; the current one keeps working until `keys retire`')
    .option('--new-key <base64>', 'the new key (32 random bytes in base64, or - to read it from standard input); '
      + 'on the embedded store without DATA_ENCRYPTION_KEY: generated when left out, and written to the key file')
    .action((options: { newKey?: string }) => run(() => withStore(async (store) => {
      await migrate(store.db);
      const { rotateKeys } = await import('./key-commands.js');
      process.stdout.write(`${await rotateKeys(store, loadConfig().store, options.newKey)}\n`);
    })));
  keys.command('retire')
    .description('delete the wrappings under the previous master key, once every process runs with the new one')
    .action(() => run(() => withStore(async (store) => {
      await migrate(store.db);
      const { retireKeys } = await import('./key-commands.js');
      process.stdout.write(`${await retireKeys(store, loadConfig().store)}\n`);
    })));
  cli.command('backup')
    .description('back up the embedded store in DATA_DIR to FILE, while the service runs or not (docs/operations.md, "Backups")')
    .argument('<file>', 'the backup to write (a gzip\'d tar); it must not exist')
    .option('--without-key', 'leave the key file out: a restore then needs the master key from elsewhere')
    .action((file: string, options: { withoutKey?: boolean }) => run(async () => {
      const { backupStore } = await import('./backup-commands.js');
      process.stdout.write(`${await backupStore(loadConfig().store, file, options)}\n`);
      return 0;
    }));
  cli.command('restore')
    .description('restore a backup made by `backup` into DATA_DIR, an empty or new folder; then start the service on it')
    .argument('<file>', 'the backup to restore')
    .option('--force', 'delete whatever DATA_DIR holds first (never while a process has it open)')
    .action((file: string, options: { force?: boolean }) => run(async () => {
      const { restoreStore } = await import('./backup-commands.js');
      process.stdout.write(`${await restoreStore(loadConfig().store, file, options)}\n`);
      return 0;
    }));
  return cli;
}

async function withStore(work: (store: Store) => Promise<void>): Promise<number> {
  const store = await connectStore(loadConfig());
  try {
    await work(store);
    return 0;
  } finally {
    await store.close();
  }
}

function generatedPassword(): string {
  return `Aa1${crypto.getRandomValues(new Uint8Array(16)).reduce((s, b) => s + b.toString(16).padStart(2, '0'), '')}`;
}

/** What the operator reads when a command fails: one line for the failures we expect. */
function describeFailure(error: unknown): string {
  const expected = error instanceof ConfigError || error instanceof MigrationRefusedError
    || error instanceof AppError || error instanceof StartupError;
  if (expected) return `error: ${error.message}`;
  return error instanceof Error ? error.stack ?? error.message : String(error);
}

/** No arguments at all means `serve` (commander's default command would take an unknown one as its argument). */
function withDefaultCommand(args: string[]): string[] {
  return args.length === 0 ? ['serve'] : args;
}

// Every command ends the process itself: a store or a pool left open must not keep it alive.
function exit(code: number): never {
  process.exit(code);
}

try {
  program((work) => {
    work().then((result) => {
      if (result !== 'running') exit(result);
    }, (error: unknown) => {
      process.stderr.write(`${describeFailure(error)}\n`);
      exit(1);
    });
  }).parse(withDefaultCommand(process.argv.slice(2)), { from: 'user' });
} catch (error) {
  // Help and version exit 0; wrong arguments 2 (commander has printed what is wrong).
  if (error instanceof CommanderError) exit(error.exitCode === 0 ? 0 : 2);
  throw error;
}
