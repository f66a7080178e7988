import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { Agent, buildConnector, request } from 'undici';
import { type Config, ConfigError } from '../../config/config.js';
import { BlockedTargetError, blockedAddressReason, guardedLookup } from './target-guard.js';
import { RenderError, renderBodyOrFail } from './formats/formats.js';
import { parseSyslogUrl, SYSLOG_PROTOCOL } from './syslog/syslog-url.js';
import { SyslogTransport } from './syslog/transport.js';

/** What one attempt gave: `status_code` 0 when no HTTP answer came. */
export interface AttemptOutcome {
  statusCode: number;
  responseTimeMs: number;
  success: boolean;
  error: string | null;
}

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const MAX_ERROR_LENGTH = 500;
const RESPONSE_DRAIN_LIMIT = 64 * 1024;

/**
 * Sends webhook requests: HTTPS with certificate verification always on (system CAs plus
 * `WEBHOOK_CA_FILE`), no redirects followed, every address checked when a socket connects
 * (literal IPs here, resolved names in the socket's lookup, which hands the socket the address
 * it checked), unless private targets are allowed. Connections are kept alive per origin and
 * reused; each new one passes the same checks. A `syslog+tls://` URL (the `syslog` format) goes
 * through the syslog transport instead, with the same certificates, address rules and timeout.
 */
export class Sender {
  private readonly agent: Agent;
  private readonly syslog: SyslogTransport;
  private readonly timeoutMs: number;

  constructor(config: Readonly<Config>) {
    this.timeoutMs = config.webhooks.timeoutMs;
    // Built once: given as `ca`, Node would parse every root certificate again for each connection (~20 ms).
    const secureContext = config.webhooks.caFile
      ? createSecureContext({ ca: [...rootCertificates, readCaFile(config.webhooks.caFile)] })
      : undefined;
    const allowPrivate = config.webhooks.allowPrivateTargets;
    const connector = buildConnector({
      ...(secureContext ? { secureContext } : {}),
      ...(allowPrivate ? {} : { lookup: guardedLookup }),
      rejectUnauthorized: true,
      timeout: this.timeoutMs,
    });
    this.syslog = new SyslogTransport({ secureContext, allowPrivateTargets: allowPrivate, timeoutMs: this.timeoutMs });
    this.agent = new Agent({
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connect: (options, callback) => {
        const host = options.hostname.replace(/^\[|\]$/g, '');
        const reason = !allowPrivate && isIP(host) ? blockedAddressReason(host) : null;
        if (reason) return callback(new BlockedTargetError(host, host, reason), null);
        return connector(options, callback);
      },
    });
  }

  /**
   * One POST; success is a 2xx status within the timeout. For a syslog URL, the body (a syslog
   * message) written and flushed within the timeout; headers are HTTP's and not sent. Never throws.
   */
  async send(outgoing: OutgoingRequest): Promise<AttemptOutcome> {
    if (outgoing.url.startsWith(SYSLOG_PROTOCOL)) return this.sendSyslog(outgoing);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const response = await request(outgoing.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: outgoing.headers,
        body: outgoing.body,
        signal: controller.signal,
      });
      const responseTimeMs = elapsed();
      await response.body.dump({ limit: RESPONSE_DRAIN_LIMIT }).catch(() => {});
      const success = response.statusCode >= 200 && response.statusCode < 300;
      return {
        statusCode: response.statusCode,
        responseTimeMs,
        success,
        error: success ? null : describeStatus(response.statusCode),
      };
    } catch (error) {
      return {
        statusCode: 0,
        responseTimeMs: elapsed(),
        success: false,
        error: timedOut ? `no response within ${this.timeoutMs} ms` : describeError(error),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  private async sendSyslog(outgoing: OutgoingRequest): Promise<AttemptOutcome> {
    let target;
    try {
      target = parseSyslogUrl(outgoing.url);
    } catch (error) {
      return { statusCode: 0, responseTimeMs: 0, success: false, error: describeError(error) };
    }
    return this.syslog.send(target, [outgoing.body]);
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.syslog.close()]);
  }
}

/**
 * One attempt of a stored envelope in a webhook's format: the body is rendered, then `request`
 * gives the URL and the headers signed over that body. A body that cannot be rendered is a failed
 * attempt that sent nothing (retried, recorded with the reason), never a crash of the worker.
 */
export async function sendInFormat(
  sender: Pick<Sender, 'send'>, format: string, envelopeJson: string,
  request: (body: string) => Omit<OutgoingRequest, 'body'>,
): Promise<AttemptOutcome> {
  let body: string;
  try {
    body = renderBodyOrFail(format, envelopeJson);
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    return { statusCode: 0, responseTimeMs: 0, success: false, error: error.message.slice(0, MAX_ERROR_LENGTH) };
  }
  return sender.send({ ...request(body), body });
}

function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch {
    throw new ConfigError('WEBHOOK_CA_FILE', 'a readable PEM file of CA certificates', path);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError('WEBHOOK_CA_FILE', 'a PEM file of CA certificates', path);
  }
  return pem;
}

function describeStatus(status: number): string {
  const note = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
  return `the receiver answered HTTP ${status}${note}`;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, MAX_ERROR_LENGTH);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const source = error instanceof BlockedTargetError || !cause ? error : cause;
  const code = source instanceof BlockedTargetError ? undefined : (source as { code?: unknown }).code;
  const text = typeof code === 'string' && !source.message.includes(code) ? `${code}: ${source.message}` : source.message;
  return text.slice(0, MAX_ERROR_LENGTH);
}
