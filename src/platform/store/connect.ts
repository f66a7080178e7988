import type { Config } from '../../config/config.js';
import { parseDatabaseUrl } from '../../config/database-url.js';
import { StartupError } from '../../kernel/startup-error.js';
import { isStoreUnavailable } from './store-errors.js';
import { openStore, type Store } from './store.js';

interface WarnLogger {
  warn(fields: object, message: string): void;
}

/**
 * Opens the configured store and waits until it answers. PostgreSQL may still be starting (a
 * compose file, a pod scheduled before its database): connection failures are retried until
 * DATABASE_CONNECT_TIMEOUT_MS, then the start fails with one line. Other failures (a wrong
 * password, a missing database) fail at once.
 */
export async function connectStore(config: Readonly<Config>, logger?: WarnLogger): Promise<Store> {
  const store = await openStore(config.store).catch((error: unknown) => {
    throw new StartupError(`cannot open the embedded store in ${config.store.dataDir}: ${reasonOf(error)}`);
  });
  if (store.kind === 'pglite') return store;

  const target = parseDatabaseUrl(config.store.databaseUrl!).description;
  const deadline = Date.now() + config.store.connectTimeoutMs;
  for (let delayMs = 250, warned = false; ; delayMs = Math.min(delayMs * 2, 2000)) {
    try {
      await store.ping();
      return store;
    } catch (error) {
      const retrying = isStoreUnavailable(error) && Date.now() + delayMs < deadline;
      if (!retrying) {
        await store.close().catch(() => {});
        const gaveUp = isStoreUnavailable(error) ? ` (gave up after ${config.store.connectTimeoutMs} ms, DATABASE_CONNECT_TIMEOUT_MS)` : '';
        throw new StartupError(`cannot reach the database ${target}: ${reasonOf(error)}${gaveUp}`);
      }
      if (!warned) logger?.warn({ database: target, reason: reasonOf(error) }, 'database not reachable yet; retrying');
      warned = true;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const text = typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
  return text || 'unknown error';
}
