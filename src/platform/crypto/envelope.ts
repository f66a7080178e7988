import { randomBytes } from 'node:crypto';
import type { MasterKey } from './master-key.js';
import { DecryptionError, seal, unseal } from './sealed-text.js';

/** A tenant's keys in clear, in memory only: `dataKey` encrypts its values, `fingerprintKey` keys its fingerprints. */
export interface TenantKeys {
  readonly tenantId: string;
  readonly dataKey: Buffer;
  readonly fingerprintKey: Buffer;
}

/** A tenant's keys as stored, each sealed under the master key `masterKeyId` names. */
export interface WrappedTenantKeys {
  readonly masterKeyId: string;
  readonly dataKey: string;
  readonly fingerprintKey: string;
}

const TENANT_KEY_BYTES = 32;
const DATA_KEY_PURPOSE = 'tenant.data_key';
const FINGERPRINT_KEY_PURPOSE = 'tenant.fingerprint_key';
/** A lone UTF-16 surrogate has no UTF-8 form: it would come back as U+FFFD. */
const LONE_SURROGATE = /\p{Cs}/u;

/** New random keys for a tenant, made once: they never change, so neither do its ciphertexts and fingerprints. */
export function createTenantKeys(tenantId: string): TenantKeys {
  return { tenantId, dataKey: randomBytes(TENANT_KEY_BYTES), fingerprintKey: randomBytes(TENANT_KEY_BYTES) };
}

/** A tenant's keys sealed under the master key and bound to the tenant: moved to another tenant, they do not open. */
export function wrapTenantKeys(keys: TenantKeys, master: MasterKey): WrappedTenantKeys {
  const { tenantId } = keys;
  return {
    masterKeyId: master.id,
    dataKey: seal(master.key, { tenantId, purpose: DATA_KEY_PURPOSE }, keys.dataKey),
    fingerprintKey: seal(master.key, { tenantId, purpose: FINGERPRINT_KEY_PURPOSE }, keys.fingerprintKey),
  };
}

/** The tenant's keys back from storage; a DecryptionError when `master` did not wrap them or they are another tenant's. */
export function unwrapTenantKeys(tenantId: string, wrapped: WrappedTenantKeys, master: MasterKey): TenantKeys {
  if (wrapped.masterKeyId !== master.id) {
    throw new DecryptionError(`the keys of tenant ${tenantId} are wrapped under master key ${wrapped.masterKeyId}, `
      + `not ${master.id}`);
  }
  const dataKey = unseal(master.key, { tenantId, purpose: DATA_KEY_PURPOSE }, wrapped.dataKey);
  const fingerprintKey = unseal(master.key, { tenantId, purpose: FINGERPRINT_KEY_PURPOSE }, wrapped.fingerprintKey);
  if (dataKey.length !== TENANT_KEY_BYTES || fingerprintKey.length !== TENANT_KEY_BYTES) {
    throw new DecryptionError(`the keys of tenant ${tenantId} are not ${TENANT_KEY_BYTES} bytes long`);
  }
  return { tenantId, dataKey, fingerprintKey };
}

/**
 * A rotation of the master key, for one tenant: the same keys sealed under `next`. Its values and
 * fingerprints stay as they are; once every tenant is rewrapped, `current` is no longer needed.
 */
export function rewrapTenantKeys(
  tenantId: string, wrapped: WrappedTenantKeys, current: MasterKey, next: MasterKey,
): WrappedTenantKeys {
  return wrapTenantKeys(unwrapTenantKeys(tenantId, wrapped, current), next);
}

/**
 * A tenant's value encrypted for a text or jsonb column. `purpose` (`classification`,
 * `webhook.signing_secret`...) is needed again to decrypt: a ciphertext copied to another
 * column or tenant does not open there. Lone surrogates are refused (no UTF-8 form).
 */
export function encryptValue(keys: TenantKeys, purpose: string, value: string): string {
  if (LONE_SURROGATE.test(value)) throw new TypeError('cannot encrypt a text holding a lone surrogate (no UTF-8 form)');
  return seal(keys.dataKey, { tenantId: keys.tenantId, purpose }, Buffer.from(value, 'utf8'));
}

/** The value `encryptValue` was given; a DecryptionError for another tenant or purpose, or an altered text. */
export function decryptValue(keys: TenantKeys, purpose: string, encrypted: string): string {
  return unseal(keys.dataKey, { tenantId: keys.tenantId, purpose }, encrypted).toString('utf8');
}
