import { readFileSync } from 'node:fs';
import type { StoreConfig } from './config/config.js';
import type { Store } from './platform/store/store.js';
import { KeyRotationError, retirePreviousKeys, rotateMasterKey } from './platform/crypto/key-rotation.js';
import { generateMasterKey, type MasterKey, masterKeyOf, parseMasterKey, replaceKeyFile } from './platform/crypto/master-key.js';

/**
 * `ugs keys rotate`. On PostgreSQL (or whenever DATA_ENCRYPTION_KEY is set) it wraps every
 * tenant's keys under the new key and says what to do next. On the embedded store with its key
 * file, where one process owns the store, it does the whole rotation at once: rotate, write the
 * new key file, retire the old wrappings.
 */
export async function rotateKeys(store: Store, config: StoreConfig, newKeyText: string | undefined): Promise<string> {
  const current = masterKeyOf(config);
  const fromKeyFile = config.encryptionKey === undefined;
  if (!fromKeyFile && newKeyText === undefined) {
    throw new KeyRotationError('--new-key is required when the key comes from DATA_ENCRYPTION_KEY');
  }
  const next = newKeyText === undefined ? generateMasterKey() : readNewKey(newKeyText);
  const { rewrapped, alreadyRotated } = await rotateMasterKey(store.db, current, next);
  const tenants = `${rewrapped + alreadyRotated} tenant(s) wrapped under key ${next.id}`;
  if (!fromKeyFile) {
    return `${tenants}. Now set DATA_ENCRYPTION_KEY to the new key in every process and restart them; `
      + 'then run `ugs keys retire` with the new key, and the old key opens nothing any more.';
  }
  replaceKeyFile(config.dataDir, next);
  await retirePreviousKeys(store.db, next);
  return `${tenants}; the key file of ${config.dataDir} holds the new key, and the old one opens nothing any more `
    + '(back up the new key file).';
}

/** `ugs keys retire`: run with the new key as the current one. */
export async function retireKeys(store: Store, config: StoreConfig): Promise<string> {
  const current = masterKeyOf(config);
  const { retired } = await retirePreviousKeys(store.db, current);
  return `${retired} tenant(s) no longer have keys wrapped under a previous master key; only key ${current.id} opens them.`;
}

function readNewKey(text: string): MasterKey {
  return text === '-' ? parseMasterKey(readFileSync(0, 'utf8'), 'the new key (standard input)') : parseMasterKey(text, '--new-key');
}
