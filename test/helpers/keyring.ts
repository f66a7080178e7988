import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/kernel/tables/database.js';
import { TenantKeyring } from '../../src/platform/crypto/keyring.js';
import { parseMasterKey } from '../../src/platform/crypto/master-key.js';

/** A new master key in its written form (base64), as DATA_ENCRYPTION_KEY takes it. */
export function newMasterKeyText(): string {
  return randomBytes(32).toString('base64');
}

/** The keyring of a test store: a master key of its own, or the one given. */
export function testKeyring(db: Kysely<Database>, masterKeyText = newMasterKeyText()): TenantKeyring {
  return new TenantKeyring(db, parseMasterKey(masterKeyText));
}
