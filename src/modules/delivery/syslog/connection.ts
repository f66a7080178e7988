import { isIP } from 'node:net';
import { connect, type SecureContext, type TLSSocket } from 'node:tls';
import { BlockedTargetError, blockedAddressReason, guardedLookup } from '../target-guard.js';
import type { SyslogTarget } from './syslog-url.js';

export interface ConnectionOptions {
  /** System CAs plus `WEBHOOK_CA_FILE`; undefined: Node's default (the system CAs). */
  secureContext: SecureContext | undefined;
  allowPrivateTargets: boolean;
  backoff: Backoff;
}

/** After `n` failures in a row, wait between half and all of `min(maxMs, baseMs * 2^(n-1))` before connecting again. */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/** Gives up on the close handshake of a connection being closed after this long. */
const CLOSE_GRACE_MS = 1000;

/**
 * One TLS connection to a syslog receiver, opened when first needed and kept for the next sends.
 * Certificates are always verified (SNI with the host name) and the address checked when the
 * socket connects, as for HTTPS targets. After a failed connection or write, connecting again
 * waits an exponential, capped and jittered delay; a send that cannot wait that long fails at once.
 */
export class SyslogConnection {
  private socket: TLSSocket | undefined;
  private pending: TLSSocket | undefined;
  private connecting: Promise<TLSSocket> | undefined;
  /** Per socket, the sends whose bytes are not flushed yet: failed at once if it closes. */
  private readonly unwritten = new WeakMap<TLSSocket, Set<(error: Error) => void>>();
  private failures = 0;
  private retryAt = 0;
  private lastError = '';
  /** Sends under way, and when the last one ended (for closing idle connections). */
  inFlight = 0;
  lastUsedAt = Date.now();

  constructor(readonly target: SyslogTarget, private readonly options: ConnectionOptions) {}

  /** Writes `bytes` in one write; resolves once they are flushed to the connection. */
  async write(bytes: Buffer, remainingMs: () => number): Promise<void> {
    const socket = await this.ready(remainingMs());
    // The send gave up while this connection was being opened: its attempt is already a failure.
    if (remainingMs() <= 0) throw new Error('the send timed out before the connection was ready');
    await new Promise<void>((resolve, reject) => {
      const unwritten = this.unwritten.get(socket);
      unwritten?.add(reject);
      socket.write(bytes, (error) => {
        unwritten?.delete(reject);
        if (error) reject(error);
        else resolve();
      });
    }).catch((error: unknown) => {
      this.failed(error);
      socket.destroy();
      throw error;
    });
  }

  /** Drops the connection (and one being opened): the next send connects again. */
  abandon(reason: Error): void {
    this.failed(reason);
    this.pending?.destroy();
    this.socket?.destroy();
  }

  /** Ends the connection (TLS close_notify, then FIN), destroying it if the receiver does not answer in time. */
  async close(): Promise<void> {
    this.pending?.destroy();
    const socket = this.socket;
    this.socket = undefined;
    if (!socket || socket.destroyed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
      timer.unref();
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.end();
    });
  }

  get isOpen(): boolean {
    return this.socket !== undefined;
  }

  private ready(remainingMs: number): Promise<TLSSocket> {
    const socket = this.socket;
    if (socket && !socket.destroyed && socket.writable) return Promise.resolve(socket);
    if (!this.connecting) {
      const wait = Math.max(0, this.retryAt - Date.now());
      if (wait >= remainingMs) {
        return Promise.reject(new Error(`not connecting again for ${wait} ms after a failure: ${this.lastError}`));
      }
      this.connecting = delay(wait).then(() => this.open()).finally(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  private open(): Promise<TLSSocket> {
    const { host, port } = this.target;
    const literal = isIP(host) !== 0;
    return new Promise<TLSSocket>((resolve, reject) => {
      const reason = !this.options.allowPrivateTargets && literal ? blockedAddressReason(host) : null;
      if (reason) throw new BlockedTargetError(host, host, reason);
      const socket = connect({
        host,
        port,
        // SNI carries host names only (RFC 6066); an IP address is checked against the certificate's IP SANs.
        ...(literal ? {} : { servername: host }),
        ...(this.options.secureContext ? { secureContext: this.options.secureContext } : {}),
        ...(this.options.allowPrivateTargets ? {} : { lookup: guardedLookup }),
        rejectUnauthorized: true,
      });
      this.pending = socket;
      const onError = (error: Error) => {
        socket.destroy();
        reject(error);
      };
      // Closed before the handshake ended (abandoned by a send's timeout, or by the receiver).
      const onClose = () => reject(new Error('the connection closed during the TLS handshake'));
      socket.once('error', onError);
      socket.once('close', onClose);
      socket.once('secureConnect', () => {
        socket.off('error', onError);
        socket.off('close', onClose);
        this.adopt(socket);
        resolve(socket);
      });
    }).catch((error: unknown) => {
      this.failed(error);
      throw error;
    }).finally(() => {
      this.pending = undefined;
    });
  }

  private adopt(socket: TLSSocket): void {
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    // A syslog receiver sends nothing back: whatever comes is read and dropped.
    socket.on('data', () => {});
    socket.on('error', (error) => {
      this.lastError = describeSocketError(error);
    });
    // Closed by the receiver (a restart) or by us: the next send connects again, without waiting.
    const unwritten = new Set<(error: Error) => void>();
    this.unwritten.set(socket, unwritten);
    socket.on('close', () => {
      if (this.socket === socket) this.socket = undefined;
      for (const reject of unwritten) reject(new Error('the connection closed before the message was written'));
      unwritten.clear();
    });
    this.socket = socket;
    this.failures = 0;
    this.retryAt = 0;
  }

  private failed(error: unknown): void {
    this.failures += 1;
    const { baseMs, maxMs } = this.options.backoff;
    const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(this.failures - 1, 30));
    this.retryAt = Date.now() + Math.round(ceiling * (0.5 + Math.random() * 0.5));
    this.lastError = describeSocketError(error);
  }
}

export function describeSocketError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = error instanceof BlockedTargetError ? undefined : (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

function delay(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
