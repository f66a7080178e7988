/**
 * Requests per minute per credential, in fixed one-minute windows, kept in this process.
 * With several replicas each enforces the limit on its own share of the traffic.
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  /** Counts one request; returns 0 if allowed, else the seconds to wait. */
  hit(key: string, nowMs: number): number {
    if (this.perMinute === 0) return 0;
    const windowStart = nowMs - (nowMs % 60_000);
    const current = this.windows.get(key);
    if (!current || current.start !== windowStart) {
      if (this.windows.size > 100_000) this.windows.clear();
      this.windows.set(key, { start: windowStart, count: 1 });
      return 0;
    }
    current.count += 1;
    if (current.count <= this.perMinute) return 0;
    return Math.ceil((windowStart + 60_000 - nowMs) / 1000);
  }
}
