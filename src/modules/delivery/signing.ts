import { createHmac, randomBytes } from 'node:crypto';
import { hmacSha256Hex } from '../../kernel/crypto.js';
import { USER_AGENT } from './transport/transport.js';

const SECRET_PREFIX = 'whsec_';

/** `whsec_` + base64 of 32 random bytes: also a valid Standard Webhooks secret. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** `X-Service-Signature`: `sha256=` + hex HMAC-SHA256 of the exact body, keyed with the secret string. */
export function serviceSignature(secret: string, body: string): string {
  return `sha256=${hmacSha256Hex(secret, body)}`;
}

/** One Standard Webhooks signature: `v1,` + base64 HMAC of `id.timestamp.body` keyed with the decoded secret. */
export function standardSignature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const digest = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${digest}`;
}

export interface SigningKeys {
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: Date | null;
}

export interface DeliveryMessage {
  deliveryId: string;
  eventId: string;
  eventType: string;
  body: string;
  /** The moment of the attempt (the `webhook-timestamp`). */
  now: Date;
}

/**
 * The service's own headers of one attempt. The old secret of a recent rotation signs beside the
 * new one in `webhook-signature` until its grace period ends; `X-Service-Signature` uses the new one.
 */
export function signedHeaders(keys: SigningKeys, message: DeliveryMessage): Record<string, string> {
  const timestamp = Math.floor(message.now.getTime() / 1000);
  const signatures = [standardSignature(keys.signing_secret, message.eventId, timestamp, message.body)];
  if (keys.previous_signing_secret && keys.previous_secret_expires_at && keys.previous_secret_expires_at > message.now) {
    signatures.push(standardSignature(keys.previous_signing_secret, message.eventId, timestamp, message.body));
  }
  return {
    'content-type': 'application/json',
    'x-service-signature': serviceSignature(keys.signing_secret, message.body),
    'x-service-event': message.eventType,
    'x-service-event-id': message.eventId,
    'x-service-delivery': message.deliveryId,
    'webhook-id': message.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}

export interface DeliveryTarget extends SigningKeys {
  headers: Record<string, string>;
  auth_token: string;
}

/** Every header of one attempt: the webhook's custom headers, its bearer token, then the signed ones. */
export function deliveryHeaders(target: DeliveryTarget, message: DeliveryMessage): Record<string, string> {
  return {
    'user-agent': USER_AGENT,
    ...target.headers,
    ...(target.auth_token ? { authorization: `Bearer ${target.auth_token}` } : {}),
    ...signedHeaders(target, message),
  };
}
