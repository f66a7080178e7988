import { createHmac } from 'node:crypto';
import type { TenantKeys } from './envelope.js';

/** The types written with spaces, dashes or dots between their digits (docs/interactions.md names them). */
const DIGIT_TYPES: ReadonlySet<string> = new Set(['CREDIT_CARD', 'NIR', 'SIRET', 'SSN', 'PHONE']);
const FINGERPRINT_PREFIX = 'fp_';
const VISIBLE_CHARACTERS = 4;
const MASK_CHARACTER = '*';

/**
 * The one spelling of a detected value, so that two ways of writing it match: digits only for
 * CREDIT_CARD, NIR, SIRET, SSN and PHONE; upper case without white space for IBAN; lower case,
 * trimmed, for EMAIL; trimmed for any other type. The type is compared in upper case.
 */
export function normaliseSignalValue(type: string, value: string): string {
  const kind = type.toUpperCase();
  if (DIGIT_TYPES.has(kind)) return value.replace(/\D/g, '');
  if (kind === 'IBAN') return value.replace(/\s/g, '').toUpperCase();
  if (kind === 'EMAIL') return value.trim().toLowerCase();
  return value.trim();
}

/**
 * Finds a value again without storing it: `fp_` and the HMAC-SHA256, under the tenant's
 * fingerprint key, of `TYPE:normalised value` (base64url). The same value of one type gives one
 * fingerprint within a tenant, and fingerprints of two tenants cannot be compared.
 */
export function signalFingerprint(keys: Pick<TenantKeys, 'fingerprintKey'>, type: string, value: string): string {
  const digest = createHmac('sha256', keys.fingerprintKey)
    .update(`${type.toUpperCase()}:${normaliseSignalValue(type, value)}`, 'utf8')
    .digest('base64url');
  return FINGERPRINT_PREFIX + digest;
}

/**
 * The value shown where the tenant hides it: its normalised form with every character but the
 * last 4 replaced by `*`; `****` when 4 characters or fewer remain, so a short value shows nothing.
 */
export function maskSignalValue(type: string, value: string): string {
  const characters = [...normaliseSignalValue(type, value)];
  if (characters.length <= VISIBLE_CHARACTERS) return MASK_CHARACTER.repeat(VISIBLE_CHARACTERS);
  const hidden = characters.length - VISIBLE_CHARACTERS;
  return MASK_CHARACTER.repeat(hidden) + characters.slice(hidden).join('');
}
