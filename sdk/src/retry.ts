export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** First backoff when the answer has no `Retry-After`; doubled on each retry, with jitter (default 250 ms). */
  baseDelayMs?: number;
  /**
   * Longest wait before a retry (default 10 s). An answer whose `Retry-After` asks for more is
   * returned as it is (an ApiError for the caller) rather than waited for.
   */
  maxDelayMs?: number;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (retry: RetryEvent) => void;
}

export interface RetryEvent {
  /** The retry about to be made: 1 for the second attempt. */
  retry: number;
  method: string;
  url: string;
  /** The status that caused it (429 or 503), or undefined after a network error. */
  status: number | undefined;
  error: unknown;
  delayMs: number;
}

type Fetch = (request: Request) => Promise<Response>;

const RETRIED_STATUSES = new Set([429, 503]);
// Idempotent by HTTP semantics. A POST (or PATCH) is retried only with an Idempotency-Key, which
// the service uses to answer a repeat with the first response instead of storing twice.
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export function isRetriable(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
}

/**
 * A fetch that retries answers 429 and 503 and network errors, waiting `Retry-After` when the
 * answer has one and a bounded exponential backoff otherwise. Every attempt sends the same
 * request, headers included (so the same Idempotency-Key).
 */
export function retryingFetch(fetchOnce: Fetch, options: RetryOptions = {}): Fetch {
  const retries = options.retries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  return async (request) => {
    if (!isRetriable(request)) return fetchOnce(request);
    for (let retry = 1; ; retry += 1) {
      let response: Response | undefined;
      let error: unknown;
      try {
        response = await fetchOnce(request.clone());
      } catch (caught) {
        if (request.signal.aborted) throw caught;
        error = caught;
      }
      if (response && !RETRIED_STATUSES.has(response.status)) return response;
      const asked = response && retryAfterMs(response);
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
      // Jitter, also on top of Retry-After: clients refused together should not all come back together.
      const delayMs = asked === undefined ? backoff / 2 + Math.random() * (backoff / 2) : asked + Math.random() * baseDelayMs;
      if (retry > retries || (asked ?? 0) > maxDelayMs) {
        if (response) return response;
        throw error;
      }
      await response?.body?.cancel();
      options.onRetry?.({ retry, method: request.method, url: request.url, status: response?.status, error, delayMs });
      await sleep(delayMs, request.signal);
    }
  };
}

/** `Retry-After` in milliseconds: seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
