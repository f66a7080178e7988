import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/kernel/tables/database.js';
import { TenantKeyring } from '../../src/platform/crypto/keyring.js';
import { parseMasterKey } from '../../src/platform/crypto/master-key.js';

/**
 * The master key of every test store and service process unless a test chooses its own: a
 * process started on a harness's database opens the keys the harness made.
 */
export const TEST_MASTER_KEY = 'dGVzdC1tYXN0ZXIta2V5LW9mLXRoZS10ZXN0LXN1aXQ=';

/** A new master key in its written form (base64), as DATA_ENCRYPTION_KEY takes it. */
export function newMasterKeyText(): string {
  return randomBytes(32).toString('base64');
}

/** The keyring of a test store: the test master key, or the one given. */
export function testKeyring(db: Kysely<Database>, masterKeyText = TEST_MASTER_KEY): TenantKeyring {
  return new TenantKeyring(db, parseMasterKey(masterKeyText));
}
