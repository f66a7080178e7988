import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { Agent, buildConnector, request } from 'undici';
import { type Config, ConfigError } from '../../config/config.js';
import { BlockedTargetError, blockedAddressReason, guardedLookup } from './target-guard.js';
import { RenderError, type RenderContext, renderBodyOrFail } from './formats/formats.js';
import type { AnswerReader, AttemptOutcome, HttpsClient, OutgoingRequest } from './transport/transport.js';

export type { AnswerReader, AttemptOutcome, OutgoingRequest } from './transport/transport.js';

export const MAX_ERROR_LENGTH = 500;
const RESPONSE_DRAIN_LIMIT = 64 * 1024;
const ANSWER_READ_LIMIT = 16 * 1024;

/**
 * Sends webhook requests: HTTPS with certificate verification always on (system CAs plus
 * `WEBHOOK_CA_FILE`), no redirects followed, every address checked when a socket connects
 * (literal IPs here, resolved names in the socket's lookup, which hands the socket the address
 * it checked), unless private targets are allowed. Connections are kept alive per origin and
 * reused; each new one passes the same checks.
 */
export class Sender implements HttpsClient {
  private readonly agent: Agent;
  private readonly timeoutMs: number;

  constructor(config: Readonly<Config>) {
    this.timeoutMs = config.webhooks.timeoutMs;
    const secureContext = deliverySecureContext(config);
    const allowPrivate = config.webhooks.allowPrivateTargets;
    const connector = buildConnector({
      ...(secureContext ? { secureContext } : {}),
      ...(allowPrivate ? {} : { lookup: guardedLookup }),
      rejectUnauthorized: true,
      timeout: this.timeoutMs,
    });
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
   * One POST; success is a 2xx status within the timeout, or what `readAnswer` makes of the
   * answer when a format reads it. Never throws.
   */
  async send(outgoing: OutgoingRequest, readAnswer?: AnswerReader): Promise<AttemptOutcome> {
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
      if (readAnswer) {
        const answer = readAnswer(response.statusCode, await readBounded(response.body, ANSWER_READ_LIMIT));
        return { statusCode: response.statusCode, responseTimeMs, success: answer.success, error: answer.error?.slice(0, MAX_ERROR_LENGTH) ?? null };
      }
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

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The first `limit` bytes of an answer's body as text; the rest is read and dropped (the connection stays reusable). */
async function readBounded(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      if (size < limit) chunks.push(chunk.subarray(0, limit - size));
      size += chunk.length;
    }
  } catch {
    // A body cut short: what came is enough to read.
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One attempt of a stored envelope in a webhook's format: the body is rendered, then `request`
 * gives the URL and the headers signed over that body. A body that cannot be rendered is a failed
 * attempt that sent nothing (retried, recorded with the reason), never a crash of the worker.
 */
export async function sendInFormat(
  sender: Pick<Sender, 'send'>, format: string, envelopeJson: string,
  request: (body: string) => Omit<OutgoingRequest, 'body'>, context: RenderContext,
): Promise<AttemptOutcome> {
  let body: string;
  try {
    body = renderBodyOrFail(format, envelopeJson, context);
  } catch (error) {
    return renderFailure(error);
  }
  return sender.send({ ...request(body), body });
}

/** The outcome of an attempt whose body could not be rendered; any other error is thrown again. */
export function renderFailure(error: unknown): AttemptOutcome {
  if (!(error instanceof RenderError)) throw error;
  return { statusCode: 0, responseTimeMs: 0, success: false, error: error.message.slice(0, MAX_ERROR_LENGTH) };
}

/**
 * The CAs every delivery connection trusts: the system's plus `WEBHOOK_CA_FILE`'s (undefined: the
 * system's alone). Built once per client: given as `ca`, Node would parse every root certificate
 * again for each connection (~20 ms).
 */
export function deliverySecureContext(config: Readonly<Config>): SecureContext | undefined {
  return config.webhooks.caFile ? createSecureContext({ ca: [...rootCertificates, readCaFile(config.webhooks.caFile)] }) : undefined;
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
