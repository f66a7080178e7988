import closeWithGrace from 'close-with-grace';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import { buildServices } from './services.js';
import type { Config } from './config/config.js';
import type { Deps } from './platform/deps.js';
import { connectStore } from './platform/store/connect.js';
import { migrate } from './platform/store/migrate.js';
import type { Store } from './platform/store/store.js';
import { StartupError } from './kernel/startup-error.js';
import { systemClock } from './kernel/clock.js';
import { bootstrapIfEmpty, type BootstrapResult } from './modules/tenants/bootstrap.js';
import { SERVICE_VERSION } from './kernel/version.js';
import { createWorkers } from './workers.js';
import { masterKeyOf } from './platform/crypto/master-key.js';
import { TenantKeyring } from './platform/crypto/keyring.js';
import { logRedaction } from './edge/log-redaction.js';
import { type PortHold, listenFailureLine } from './edge/port-hold.js';

const SHUTDOWN_GRACE_MS = 30_000;

/**
 * config -> port -> store -> migrate -> bootstrap -> app -> listen, then workers; drains on
 * SIGTERM/SIGINT. `port` is the API's port already held (holdPort), so that a port in use stops
 * the start before the store is touched.
 */
export async function serve(config: Readonly<Config>, port: PortHold): Promise<void> {
  const logger = pino({ level: config.server.logLevel, ...logRedaction });
  const deps = await openMigratedStore(config, logger);
  const { store } = deps;

  const { app, workers } = await closingStoreOnFailure(store, async () => {
    const bootstrap = await bootstrapIfEmpty(store, config, deps.clock.now());
    if (bootstrap) announceBootstrap(bootstrap, config, logger);
    const built = await buildApp(deps, { services: buildServices(deps) });
    const started = { app: built, workers: config.server.serveWorkers ? createWorkers(deps, logger) : [] };
    await port.release();
    await built.listen({ port: config.server.port, host: config.server.host }).catch(async (error: unknown) => {
      await built.close();
      throw new StartupError(listenFailureLine(config.server.host, config.server.port, error));
    });
    return started;
  });

  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'fatal error; shutting down');
    logger.info({ signal }, 'shutting down: draining requests');
    deps.lifecycle.shuttingDown = true;
    // Keeps serving (with /readyz failing) so load balancers stop routing here before the close.
    if (config.server.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.server.shutdownDelayMs));
    await app.close();
    await Promise.all(workers.map((worker) => worker.stop()));
    await store.close();
    logger.info('shutdown complete');
  });

  for (const worker of workers) await worker.start();
  logger.info({ version: SERVICE_VERSION, port: config.server.port, store: store.kind }, `service ${SERVICE_VERSION} listening`);
}

/**
 * The workers without the API: more delivery capacity beside the API processes on one
 * PostgreSQL. Stops on SIGTERM/SIGINT once the attempts in flight are recorded.
 */
export async function runWorkers(config: Readonly<Config>): Promise<void> {
  const logger = pino({ level: config.server.logLevel, ...logRedaction });
  const deps = await openMigratedStore(config, logger);
  const workers = await closingStoreOnFailure(deps.store, async () => createWorkers(deps, logger));
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
  // A missing or unusable key stops the start before the store is touched.
  const master = masterKeyOf(config.store);
  const store = await connectStore(config, logger);
  const { applied } = await closingStoreOnFailure(store, () => migrate(store.db));
  const keyring = new TenantKeyring(store.db, master);
  logger.info({ version: SERVICE_VERSION, store: store.kind, migrationsApplied: applied, masterKeyId: keyring.master.id }, 'store ready');
  return { config, store, clock: systemClock, lifecycle: { migrated: true, shuttingDown: false }, keyring };
}

/** Runs a step of the start; if it fails, closes the store before passing the failure on. */
async function closingStoreOnFailure<T>(store: Store, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}

function announceBootstrap(result: BootstrapResult, config: Readonly<Config>, logger: Logger): void {
  logger.info({ tenantId: result.tenantId, email: result.email }, 'first tenant and admin created');
  if (!result.generatedPassword) return;
  const base = `http://localhost:${config.server.port}`;
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
