import { decryptValue, encryptValue, type TenantKeys } from '../../platform/crypto/envelope.js';
import { maskSignalValue, signalFingerprint } from '../../platform/crypto/signal-values.js';
import type { Classification, StoredClassification } from '../../kernel/tables/interactions.js';
import type { InteractionResponse } from './interactions.schemas.js';

/** A tenant's choice: `keep` values (stored encrypted, returned as sent) or `mask` them (only the masked form is kept). */
export type SignalValuesMode = 'keep' | 'mask';

export const CLASSIFICATION_PURPOSE = 'classification.value';

/** An interaction as stored: as the API returns it, but with its classifications as stored. */
export type StoredInteraction = Omit<InteractionResponse, 'classifications'> & { classifications: StoredClassification[] };

/** A classification as received, before the service adds its fingerprint. */
type ReceivedClassification = Omit<Classification, 'fingerprint'>;

/**
 * What ingest keeps of a detected value: the classification as the API returns it (with its
 * fingerprint, the value masked under `mask`) and as it is stored (the value encrypted, or only
 * masked). The fingerprint is computed from the value as sent, before it is masked or encrypted.
 */
export function protectClassification(
  keys: TenantKeys, mode: SignalValuesMode, classification: ReceivedClassification,
): { returned: Classification; stored: StoredClassification } {
  const { type, value, ...rest } = classification;
  const fingerprint = signalFingerprint(keys, type, value);
  if (mode === 'mask') {
    const masked = maskSignalValue(type, value);
    return { returned: { type, value: masked, ...rest, fingerprint }, stored: { type, masked_value: masked, ...rest, fingerprint } };
  }
  return {
    returned: { type, value, ...rest, fingerprint },
    stored: { type, sealed_value: encryptValue(keys, CLASSIFICATION_PURPOSE, value), ...rest, fingerprint },
  };
}

/** A stored classification as the API returns it: its value decrypted, or masked, or (rows not sealed yet) as stored. */
export function revealClassification(keys: TenantKeys, stored: StoredClassification): Classification {
  const { type, sealed_value, masked_value, value, fingerprint, ...rest } = stored;
  const shown = sealed_value !== undefined ? decryptValue(keys, CLASSIFICATION_PURPOSE, sealed_value) : masked_value ?? value ?? '';
  return { type, value: shown, ...rest, ...(fingerprint === undefined ? {} : { fingerprint }) };
}

export function revealClassifications(keys: TenantKeys, stored: readonly StoredClassification[]): Classification[] {
  return stored.map((classification) => revealClassification(keys, classification));
}

/** A classification stored in clear by a release before values were sealed: sealed now, with its fingerprint. */
export function sealLegacyClassification(keys: TenantKeys, stored: StoredClassification): StoredClassification {
  if (stored.value === undefined) return stored;
  const { value, ...rest } = stored;
  return protectClassification(keys, 'keep', { ...rest, value }).stored;
}
