import { decryptValue, encryptValue, type TenantKeys } from '../crypto/envelope.js';

// The envelopes of interaction events carry detected values: they are stored encrypted under
// their tenant's data key, and opened by the worker that delivers them.

const MESSAGE_PURPOSE = 'webhook.message';
const SEALED_PREFIX = 'v1.';

/** Encrypts an envelope before it is queued, with the key of its tenant. */
export type PayloadSealer = (tenantId: string, payload: string) => string;

export function sealingPayloads(keys: ReadonlyMap<string, TenantKeys>): PayloadSealer {
  return (tenantId, payload) => encryptValue(keys.get(tenantId)!, MESSAGE_PURPOSE, payload);
}

/** A stored envelope as it is sent: decrypted when sealed (an envelope in clear is JSON, never `v1.`). */
export function openPayload(keys: TenantKeys, stored: string): string {
  return stored.startsWith(SEALED_PREFIX) ? decryptValue(keys, MESSAGE_PURPOSE, stored) : stored;
}
