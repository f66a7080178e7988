import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './events.js';

export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /**
   * Which signature to check. `auto` (default): the Standard Webhooks headers when the delivery
   * has them (they also guard against replays), else `X-Service-Signature`.
   */
  scheme?: 'auto' | 'standard-webhooks' | 'service-signature';
  /** How far `webhook-timestamp` may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The current time (default: the clock). */
  now?: Date;
}

export type WebhookVerificationFailure =
  | 'missing_signature'
  | 'invalid_signature'
  | 'stale_timestamp'
  | 'future_timestamp'
  | 'invalid_body';

/** A delivery that is not verifiably from the service: answer it 401 with a JSON `error`. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(readonly reason: WebhookVerificationFailure, message: string) {
    super(message);
  }
}

const SECRET_PREFIX = 'whsec_';

/**
 * Checks a delivery's signature over its raw body and returns the parsed event; throws
 * WebhookVerificationError otherwise. `secret` is the webhook's `signing_secret`; pass several
 * (new and previous) while a rotation reaches every receiver. Comparisons are constant-time.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => s.length === 0)) throw new TypeError('verifyWebhook: a signing secret is required');
  const header = headerReader(headers);
  const scheme = options.scheme ?? 'auto';
  const standard = header('webhook-signature') !== undefined;
  if (scheme === 'standard-webhooks' || (scheme === 'auto' && standard)) {
    verifyStandard(body, header, secrets, options);
  } else {
    verifyServiceSignature(body, header('x-service-signature'), secrets);
  }
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the body is not JSON');
  }
}

/** `X-Service-Signature: sha256=<hex HMAC-SHA256 of the body, keyed with the secret string>`. */
function verifyServiceSignature(body: Buffer, signature: string | undefined, secrets: string[]): void {
  if (!signature) throw new WebhookVerificationError('missing_signature', 'no X-Service-Signature header');
  const given = Buffer.from(signature.trim(), 'utf8');
  const matches = secrets.some((secret) => equal(given, Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`)));
  if (!matches) throw new WebhookVerificationError('invalid_signature', 'X-Service-Signature does not match');
}

/**
 * Standard Webhooks: `webhook-signature` lists `v1,<base64 HMAC of "id.timestamp.body">`
 * signatures separated by spaces (after a rotation, one per live secret); one match is enough.
 */
function verifyStandard(body: Buffer, header: (name: string) => string | undefined, secrets: string[], options: VerifyWebhookOptions): void {
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('missing_signature', 'webhook-id, webhook-timestamp and webhook-signature are required');
  }
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (Number.isNaN(seconds)) throw new WebhookVerificationError('invalid_signature', 'webhook-timestamp is not a number of seconds');
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (seconds < nowSeconds - tolerance) throw new WebhookVerificationError('stale_timestamp', 'webhook-timestamp is too old');
  if (seconds > nowSeconds + tolerance) throw new WebhookVerificationError('future_timestamp', 'webhook-timestamp is in the future');

  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const expected = secrets.map((secret) => createHmac('sha256', standardKey(secret)).update(signed).digest());
  const given = signatures.split(' ').flatMap((entry) => {
    const [version, value] = entry.split(',', 2);
    return version === 'v1' && value ? [Buffer.from(value, 'base64')] : [];
  });
  if (!given.some((signature) => expected.some((digest) => equal(signature, digest)))) {
    throw new WebhookVerificationError('invalid_signature', 'no webhook-signature matches');
  }
}

/** The HMAC key of a Standard Webhooks secret: the base64 part after `whsec_`, decoded. */
function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

function equal(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    return (name) => (headers as Headers).get(name) ?? undefined;
  }
  const lowered = new Map(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  return (name) => {
    const value = lowered.get(name);
    return Array.isArray(value) ? value.join(' ') : value;
  };
}
