import { randomBytes } from 'node:crypto';

/** A time-ordered UUID (version 7): new rows append to the end of their indexes. */
export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A prefixed id such as `evt_…`: the prefix, then a time-ordered, URL-safe body. */
export function prefixedId(prefix: 'whk' | 'dlv' | 'evt' | 'key', now = Date.now()): string {
  return `${prefix}_${uuidv7(now).replaceAll('-', '')}`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
