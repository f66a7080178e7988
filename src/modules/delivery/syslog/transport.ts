import type { SecureContext } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { type Backoff, describeSocketError, SyslogConnection } from './connection.js';
import { octetCountingFrames } from './rfc5424.js';
import type { SyslogTarget } from './syslog-url.js';

export interface SyslogTransportOptions {
  secureContext: SecureContext | undefined;
  allowPrivateTargets: boolean;
  /** A send that has not connected and written within this long fails (the webhook timeout). */
  timeoutMs: number;
  /** A connection no send used for this long is closed. */
  idleMs?: number;
  backoff?: Backoff;
}

/** What one send gave (the shape of an HTTP attempt's outcome: `statusCode` is always 0, there is no answer). */
export interface SyslogOutcome {
  statusCode: 0;
  responseTimeMs: number;
  success: boolean;
  error: string | null;
}

const DEFAULT_IDLE_MS = 60_000;
const DEFAULT_BACKOFF: Backoff = { baseMs: 500, maxMs: 30_000 };
const MAX_ERROR_LENGTH = 500;

/**
 * Sends RFC 5424 messages over TLS (RFC 5425): one persistent connection per destination
 * (host:port), shared by every webhook that names it and reused across sends. A send succeeds
 * when its frames were written and flushed to the connection: syslog has no acknowledgement
 * (docs/siem.md says what that means for delivery guarantees).
 */
export class SyslogTransport {
  private readonly connections = new Map<string, SyslogConnection>();
  private readonly idleMs: number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: SyslogTransportOptions) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(10, Math.floor(this.idleMs / 2)));
    this.sweeper.unref();
  }

  /**
   * Sends `messages` (unframed syslog messages) to `target` in one write, each in its
   * octet-counting frame, in order. Never throws: a failure is an outcome with its reason.
   */
  async send(target: SyslogTarget, messages: readonly string[]): Promise<SyslogOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (this.closed) return failure(elapsed(), 'the syslog transport is closed');
    const connection = this.connectionTo(target);
    connection.inFlight += 1;
    let timer: NodeJS.Timeout | undefined;
    const deadline = started + this.options.timeoutMs;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TimeoutError(this.options.timeoutMs)), this.options.timeoutMs);
      });
      const bytes = octetCountingFrames(messages);
      await Promise.race([connection.write(bytes, () => deadline - performance.now()), timeout]);
      return { statusCode: 0, responseTimeMs: elapsed(), success: true, error: null };
    } catch (error) {
      // Not connected or not flushed in time: the connection is stuck, the next send opens another.
      if (error instanceof TimeoutError) connection.abandon(error);
      return failure(elapsed(), describeSocketError(error));
    } finally {
      clearTimeout(timer);
      connection.inFlight -= 1;
      connection.lastUsedAt = Date.now();
    }
  }

  /** Open connections, by `host:port` (for tests and metrics). */
  openDestinations(): string[] {
    return [...this.connections.entries()].filter(([, c]) => c.isOpen).map(([key]) => key);
  }

  /** Closes every connection; sends after this fail. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((connection) => connection.close()));
  }

  private connectionTo(target: SyslogTarget): SyslogConnection {
    const key = destinationKey(target);
    let connection = this.connections.get(key);
    if (!connection) {
      connection = new SyslogConnection(target, {
        secureContext: this.options.secureContext,
        allowPrivateTargets: this.options.allowPrivateTargets,
        backoff: this.options.backoff ?? DEFAULT_BACKOFF,
      });
      this.connections.set(key, connection);
    }
    return connection;
  }

  private closeIdle(): void {
    const before = Date.now() - this.idleMs;
    for (const [key, connection] of this.connections) {
      if (connection.inFlight === 0 && connection.lastUsedAt < before) {
        this.connections.delete(key);
        void connection.close();
      }
    }
  }
}

export function destinationKey(target: SyslogTarget): string {
  return target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`not connected and written within ${ms} ms`);
  }
}

function failure(responseTimeMs: number, error: string): SyslogOutcome {
  return { statusCode: 0, responseTimeMs, success: false, error: error.slice(0, MAX_ERROR_LENGTH) };
}
