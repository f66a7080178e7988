import { isStoreUnavailable } from './store-errors.js';
import type { Store } from './store.js';

interface WarnLogger {
  warn(fields: object, message: string): void;
}

const PROBE_INTERVAL_MS = 1000;
const REPORT_INTERVAL_MS = 30_000;

/**
 * Logs a store outage as a few warn lines instead of one stack trace per failed request or
 * worker run: the first failure, a count every 30 s while it lasts, and the recovery (found by
 * pinging the store every second meanwhile).
 */
export class StoreOutages {
  private outage: { since: number; failures: number; reportedAt: number } | undefined;
  private probe: NodeJS.Timeout | undefined;

  constructor(private readonly store: Store, private readonly logger: WarnLogger) {}

  /** Counts `error` if it says the store is unreachable (true), else leaves it to the caller (false). */
  record(error: unknown, source: string): boolean {
    if (!isStoreUnavailable(error)) return false;
    const now = Date.now();
    if (!this.outage) {
      this.outage = { since: now, failures: 1, reportedAt: now };
      this.logger.warn({ source, reason: reasonOf(error) }, 'store unavailable: requests get 503 until it answers again');
      this.probe = setInterval(() => void this.check(), PROBE_INTERVAL_MS);
      this.probe.unref();
      return true;
    }
    this.outage.failures += 1;
    if (now - this.outage.reportedAt >= REPORT_INTERVAL_MS) {
      this.outage.reportedAt = now;
      this.logger.warn({ failures: this.outage.failures, seconds: Math.round((now - this.outage.since) / 1000) },
        'store still unavailable');
    }
    return true;
  }

  stop(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
  }

  private async check(): Promise<void> {
    const outage = this.outage;
    if (!outage || !(await this.store.ping().then(() => true, () => false))) return;
    this.stop();
    this.outage = undefined;
    this.logger.warn({ failures: outage.failures, seconds: Math.round((Date.now() - outage.since) / 1000) },
      'store available again');
  }
}

const perStore = new WeakMap<Store, StoreOutages>();

/** One outage log per store in a process, shared by the API and the workers. */
export function storeOutages(store: Store, logger: WarnLogger): StoreOutages {
  let outages = perStore.get(store);
  if (!outages) {
    outages = new StoreOutages(store, logger);
    perStore.set(store, outages);
  }
  return outages;
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** Logs a background failure, unless it is the store being unavailable: that goes to the outage log. */
export function logFailure(
  store: Store, logger: WarnLogger & { error(fields: object, message: string): void },
  level: 'warn' | 'error', error: unknown, message: string, fields: object = {},
): void {
  if (storeOutages(store, logger).record(error, message)) return;
  logger[level]({ err: error, ...fields }, message);
}
