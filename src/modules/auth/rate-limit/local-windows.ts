import type { FastifyRateLimitStore } from '@fastify/rate-limit';

type Counted = Parameters<FastifyRateLimitStore['incr']>[1];

/**
 * Counts each credential's requests per window in this process: the embedded store's, which
 * serves one process only. Windows start on the clock (every minute on the minute), as on
 * PostgreSQL, so every key's window ends at once and the ended one is dropped whole.
 */
export class LocalWindows implements FastifyRateLimitStore {
  private windowStart = 0;
  private hits = new Map<string, number>();

  incr(key: string, counted: Counted, timeWindow: number): void {
    const now = Date.now();
    const windowStart = now - (now % timeWindow);
    if (windowStart !== this.windowStart) {
      this.windowStart = windowStart;
      this.hits = new Map();
    }
    const current = (this.hits.get(key) ?? 0) + 1;
    this.hits.set(key, current);
    counted(null, { current, ttl: windowStart + timeWindow - now });
  }

  child(): FastifyRateLimitStore {
    return this;
  }
}
