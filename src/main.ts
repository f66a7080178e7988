import closeWithGrace from 'close-with-grace';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import type { Deps } from './deps.js';
import { migrate } from './db/migrate.js';
import { openStore } from './db/store.js';
import { systemClock } from './lib/clock.js';
import { bootstrapIfEmpty, type BootstrapResult } from './modules/tenants/bootstrap.js';
import { SERVICE_VERSION } from './version.js';
import { createWorkers } from './workers.js';

const SHUTDOWN_GRACE_MS = 30_000;

/** config -> store -> migrate -> bootstrap -> app -> listen, then workers; drains on SIGTERM/SIGINT. */
export async function serve(config: Readonly<Config>): Promise<void> {
  const logger = pino({ level: config.logLevel });
  const deps = await openMigratedStore(config, logger);
  const { store } = deps;

  const bootstrap = await bootstrapIfEmpty(store, config, deps.clock.now());
  if (bootstrap) announceBootstrap(bootstrap, config, logger);

  const app = await buildApp(deps);
  const workers = config.serveWorkers ? createWorkers(deps, logger) : [];

  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'fatal error; shutting down');
    logger.info({ signal }, 'shutting down: draining requests');
    deps.lifecycle.shuttingDown = true;
    // Keeps serving (with /readyz failing) so load balancers stop routing here before the close.
    if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    await app.close();
    await Promise.all(workers.map((worker) => worker.stop()));
    await store.close();
    logger.info('shutdown complete');
  });

  await app.listen({ port: config.port, host: config.host });
  for (const worker of workers) await worker.start();
  logger.info({ version: SERVICE_VERSION, port: config.port, store: store.kind }, `service ${SERVICE_VERSION} listening`);
}

/**
 * The workers without the API: more delivery capacity beside the API processes on one
 * PostgreSQL. Stops on SIGTERM/SIGINT once the attempts in flight are recorded.
 */
export async function runWorkers(config: Readonly<Config>): Promise<void> {
  const logger = pino({ level: config.logLevel });
  const deps = await openMigratedStore(config, logger);
  const workers = createWorkers(deps, logger);
  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'fatal error; stopping the workers');
    logger.info({ signal }, 'stopping the workers');
    deps.lifecycle.shuttingDown = true;
    await Promise.all(workers.map((worker) => worker.stop()));
    await deps.store.close();
  });
  for (const worker of workers) await worker.start();
  logger.info({ version: SERVICE_VERSION, store: deps.store.kind }, 'workers running');
}

async function openMigratedStore(config: Readonly<Config>, logger: Logger): Promise<Deps> {
  const store = await openStore({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir,
    poolSize: config.databasePoolSize, poolTimeoutMs: config.databasePoolTimeoutMs,
    embedded: { durableCommits: config.embeddedDurableCommits, sharedBuffersMb: config.embeddedSharedBuffersMb },
  });
  const { applied } = await migrate(store.db).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  logger.info({ version: SERVICE_VERSION, store: store.kind, migrationsApplied: applied }, 'store ready');
  return { config, store, clock: systemClock, lifecycle: { migrated: true, shuttingDown: false } };
}

function announceBootstrap(result: BootstrapResult, config: Readonly<Config>, logger: Logger): void {
  logger.info({ tenantId: result.tenantId, email: result.email }, 'first tenant and admin created');
  if (!result.generatedPassword) return;
  const base = `http://localhost:${config.port}`;
  // Printed once, on the console only: this password is never stored in clear nor logged.
  process.stdout.write(
    [
      '',
      '================ first administrator ================',
      `  email:    ${result.email}`,
      `  password: ${result.generatedPassword}`,
      '  log in with:',
      `  curl -s -X POST ${base}/api/v1/auth/login -H 'Content-Type: application/json' \\`,
      `    -d '{"email":"${result.email}","password":"${result.generatedPassword}"}'`,
      '  This password is shown only once. Change it with PUT /api/v1/users/me.',
      '=====================================================',
      '',
    ].join('\n') + '\n',
  );
}
