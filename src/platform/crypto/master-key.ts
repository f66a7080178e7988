import { hash, randomBytes } from 'node:crypto';
import {
  closeSync, existsSync, fchmodSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { StoreConfig } from '../../config/config.js';
import { StartupError } from '../../kernel/startup-error.js';
import { fsyncPath } from '../fsync.js';

/** The embedded store's master key, in its data directory when DATA_ENCRYPTION_KEY is unset. */
export const MASTER_KEY_FILE = 'data-encryption.key';

const MASTER_KEY_BYTES = 32;
const KEY_FILE_MODE = 0o600;
/** 32 bytes are 43 base64 characters (and one `=` of padding), in one alphabet or the other. */
const BASE64_KEY = /^(?:[A-Za-z0-9+/]{43}|[A-Za-z0-9_-]{43})=?$/;

/** The key every tenant's keys are wrapped under, with the id recorded beside what it wraps. */
export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

/** A master key that cannot be used: one line naming where it came from, never the key itself. */
export class MasterKeyError extends StartupError {}

/**
 * The master key written as text (base64, standard or url alphabet, padding optional, surrounding
 * white space ignored). `source` names it in the error: the variable or the file it came from.
 */
export function parseMasterKey(text: string, source = 'DATA_ENCRYPTION_KEY'): MasterKey {
  const written = text.trim();
  const key = Buffer.from(written, 'base64');
  const canonical = key.toString('base64url') === written.replace(/=$/, '').replaceAll('+', '-').replaceAll('/', '_');
  if (!BASE64_KEY.test(written) || key.length !== MASTER_KEY_BYTES || !canonical) {
    throw new MasterKeyError(`${source} is not a valid data encryption key: expected ${MASTER_KEY_BYTES} random bytes `
      + 'in base64 (openssl rand -base64 32)');
  }
  return { id: masterKeyId(key), key };
}

/** Names a master key without revealing it: the first 8 bytes of its SHA-256, hex. */
export function masterKeyId(key: Buffer): string {
  return hash('sha256', key, 'hex').slice(0, 16);
}

/**
 * The embedded store's master key, `<dataDir>/data-encryption.key`: made at the first start, read
 * at the next ones. A file readable by others than its owner (mode other than 0600) is refused.
 */
export function loadOrCreateKeyFile(dataDir: string): MasterKey {
  const path = join(dataDir, MASTER_KEY_FILE);
  try {
    if (!existsSync(path)) createKeyFile(dataDir, path);
    const mode = statSync(path).mode & 0o777;
    if (mode !== KEY_FILE_MODE) {
      throw new MasterKeyError(`the key file ${path} has mode ${mode.toString(8).padStart(4, '0')}, expected 0600 `
        + `(chmod 600 ${path})`);
    }
    return parseMasterKey(readFileSync(path, 'utf8'), `the key file ${path}`);
  } catch (error) {
    if (error instanceof MasterKeyError) throw error;
    throw new MasterKeyError(`cannot read or create the key file ${path}: ${(error as Error).message}`);
  }
}

/**
 * Writes a new key in a draft file of its own (`wx`, 0600), synced, then links it under its name:
 * the key file appears whole or not at all, and a start racing this one keeps the key linked first.
 */
function createKeyFile(dataDir: string, path: string): void {
  mkdirSync(dataDir, { recursive: true });
  const draft = `${path}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = openSync(draft, 'wx', KEY_FILE_MODE);
  try {
    fchmodSync(fd, KEY_FILE_MODE);
    writeSync(fd, `${randomBytes(MASTER_KEY_BYTES).toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(draft, path);
    fsyncPath(dataDir); // the new name survives a crash of the machine
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
}

/** The process's master key: DATA_ENCRYPTION_KEY when set, else (embedded store only) the key file of DATA_DIR. */
export function masterKeyOf(store: Pick<StoreConfig, 'encryptionKey' | 'databaseUrl' | 'dataDir'>): MasterKey {
  if (store.encryptionKey !== undefined) return parseMasterKey(store.encryptionKey);
  if (store.databaseUrl !== undefined) throw new MasterKeyError('DATA_ENCRYPTION_KEY is required with DATABASE_URL');
  return loadOrCreateKeyFile(store.dataDir);
}

/** A new random master key. */
export function generateMasterKey(): MasterKey {
  const key = randomBytes(MASTER_KEY_BYTES);
  return { id: masterKeyId(key), key };
}

/** Replaces the key file of `dataDir` with `master`, whole or not at all (a draft synced, then renamed over it). */
export function replaceKeyFile(dataDir: string, master: MasterKey): void {
  const path = join(dataDir, MASTER_KEY_FILE);
  const draft = `${path}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = openSync(draft, 'wx', KEY_FILE_MODE);
  try {
    fchmodSync(fd, KEY_FILE_MODE);
    writeSync(fd, `${master.key.toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(draft, path);
  fsyncPath(dataDir);
}
