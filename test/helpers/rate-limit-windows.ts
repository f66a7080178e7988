import type { IncomingHttpHeaders } from 'node:http';

const WINDOW_MS = 60_000;

/**
 * Waits, if need be, until at least `ms` are left in the rate limit's current window (windows start
 * every minute on the minute; PostgreSQL on loopback shares this machine's clock), so that requests
 * sent now all fall in one window.
 */
export async function clearOfWindowEnd(ms: number): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < ms) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

/** An answer's RateLimit-* headers as numbers (undefined when absent). */
export function rateLimitHeaders(headers: IncomingHttpHeaders | Headers | Record<string, unknown>) {
  const get = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : (headers as Record<string, unknown>)[name];
    return value === undefined || value === null ? undefined : Number(value);
  };
  return { limit: get('ratelimit-limit'), remaining: get('ratelimit-remaining'), reset: get('ratelimit-reset') };
}
