import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret for bearer tokens, API keys and invitation links: 32 bytes, base64url. */
export function randomSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** Secrets are stored only as their SHA-256; the lookup is by this digest (every request makes one). */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function hmacSha256Hex(key: string | Buffer, payload: string | Buffer): string {
  return createHmac('sha256', key).update(payload).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
