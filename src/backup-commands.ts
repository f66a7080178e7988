import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { StoreConfig } from './config/config.js';
import { StartupError } from './kernel/startup-error.js';
import { SERVICE_VERSION } from './kernel/version.js';
import { MASTER_KEY_FILE, masterKeyId, parseMasterKey } from './platform/crypto/master-key.js';
import { fsyncPath } from './platform/fsync.js';
import { DataDirInUseError, HOLDER_SOCKET, type HolderClient, connectToHolder, holdDataDir } from './platform/store/data-dir-holder.js';
import { type BackupControl, type BackupManifest, NotABackupError, unpackBackup, writeBackup } from './platform/store/embedded-backup.js';
import { type BackupStart, type BackupStop, startOnlineBackup, stopOnlineBackup } from './platform/store/online-backup.js';
import { openStore, type Store } from './platform/store/store.js';

/** A backup or restore that cannot be done: its message is the one line printed. */
export class BackupError extends StartupError {}

const ON_POSTGRES = 'on PostgreSQL use pg_dump and pg_restore (docs/operations.md, "Backups")';

/**
 * `ugs backup FILE`: the embedded store in DATA_DIR, consistent as of the end of the backup, while
 * the service keeps serving. The process holding the folder runs PostgreSQL's online backup and
 * this one copies the folder meanwhile; with no process holding it, this one opens the store itself.
 */
export async function backupStore(config: StoreConfig, file: string, options: { withoutKey?: boolean } = {}): Promise<string> {
  if (config.databaseUrl) throw new BackupError(`\`ugs backup\` copies the embedded store; ${ON_POSTGRES}`);
  const target = resolve(file);
  if (existsSync(target)) throw new BackupError(`${file} exists already: choose another name`);
  const key = keyOf(config);
  const includedKey = options.withoutKey ? undefined : key.file;
  const manifest: BackupManifest = {
    format: 'ugs-embedded-store-backup',
    format_version: 1,
    service_version: SERVICE_VERSION,
    created_at: new Date().toISOString(),
    key_file_included: includedKey !== undefined,
    master_key_id: key.id ?? null,
  };

  const holder = await connectToHolder(config.dataDir);
  let ownStore: Store | undefined;
  const draft = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    if (!holder && !existsSync(join(config.dataDir, 'PG_VERSION'))) {
      throw new BackupError(`there is no embedded store in ${config.dataDir} to back up`);
    }
    if (!holder) ownStore = await openStore({ dataDir: config.dataDir, embedded: config.embedded });
    const control = holder ? remoteControl(holder) : localControl(ownStore!);
    await writeBackup(config.dataDir, control, createWriteStream(draft, { flags: 'wx', mode: 0o600 }), manifest,
      includedKey ? [{ name: MASTER_KEY_FILE, type: 'file', content: includedKey }] : []);
    fsyncPath(draft);
    renameSync(draft, target);
    fsyncPath(dirname(target));
  } catch (error) {
    rmSync(draft, { force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the backup of ${config.dataDir} failed: ${reasonOf(error)}`);
  } finally {
    holder?.close();
    await ownStore?.close();
  }
  const size = `${(statSync(target).size / 2 ** 20).toFixed(1)} MiB`;
  const keyNote = includedKey
    ? 'with the key file: it opens everything in the store, keep it as safe as the key itself'
    : `without the key: a restore reads the detected values and webhook secrets only with the master key ${key.id ?? '(none yet)'}`
      + ` (${key.fromEnvironment ? 'DATA_ENCRYPTION_KEY' : `the key file ${MASTER_KEY_FILE}`}), kept apart`;
  return `backup of ${config.dataDir} written to ${file} (${size}), ${keyNote}`;
}

/**
 * `ugs restore FILE`: unpacks a backup into DATA_DIR, which must be empty or new (or, with
 * `force`, whatever it holds is deleted first), then opens the store once: PostgreSQL replays the
 * backup's log, so that the next start finds a store ready.
 */
export async function restoreStore(config: StoreConfig, file: string, options: { force?: boolean } = {}): Promise<string> {
  if (config.databaseUrl) throw new BackupError(`\`ugs restore\` restores the embedded store; ${ON_POSTGRES}`);
  const source = resolve(file);
  const input = await openForReading(source, file);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const hold = await holdDataDir(config.dataDir).catch((error: unknown) => {
    input.destroy();
    if (error instanceof DataDirInUseError) {
      throw new BackupError(`${config.dataDir} is in use by a running process${error.pid ? ` (pid ${error.pid})` : ''}: stop it before restoring into its folder`);
    }
    throw new BackupError(`cannot restore into ${config.dataDir}: ${reasonOf(error)}`);
  });
  let manifest: BackupManifest;
  try {
    const present = contentsOf(config.dataDir);
    if (present.length > 0 && !options.force) {
      throw new BackupError(`${config.dataDir} is not empty: restore into an empty or new folder, or add --force to replace what it holds`);
    }
    empty(config.dataDir, present);
    manifest = await unpackBackup(input, config.dataDir).catch((error: unknown) => {
      empty(config.dataDir, contentsOf(config.dataDir));
      if (error instanceof NotABackupError) throw new BackupError(`${file}: ${error.message}`);
      throw new BackupError(`cannot restore ${file} into ${config.dataDir}: ${reasonOf(error)}`);
    });
  } finally {
    input.destroy();
    await hold.release();
  }

  const store = await openStore({ dataDir: config.dataDir, embedded: config.embedded }).catch((error: unknown) => {
    throw new BackupError(`${file} was unpacked into ${config.dataDir}, but the store there does not open: ${reasonOf(error)}`);
  });
  await store.close();
  const keyNote = manifest.key_file_included
    ? 'the key file came with it'
    : `the backup holds no key file: before the service starts, put the key file of master key ${manifest.master_key_id ?? '?'} `
      + `in ${config.dataDir} as ${MASTER_KEY_FILE} (mode 0600), or set DATA_ENCRYPTION_KEY to that key`;
  return `restored the backup of ${manifest.created_at} (service ${manifest.service_version}) into ${config.dataDir}; ${keyNote}`;
}

/** The master key in force, and the key file's content when the key comes from it. */
function keyOf(config: StoreConfig): { id?: string; file?: Buffer; fromEnvironment: boolean } {
  if (config.encryptionKey !== undefined) return { id: parseMasterKey(config.encryptionKey).id, fromEnvironment: true };
  const path = join(config.dataDir, MASTER_KEY_FILE);
  if (!existsSync(path)) return { fromEnvironment: false };
  const file = readFileSync(path);
  return { id: masterKeyId(parseMasterKey(file.toString('utf8'), `the key file ${path}`).key), file, fromEnvironment: false };
}

function remoteControl(holder: HolderClient): BackupControl {
  const ask = async (op: string) => {
    const reply = await holder.request({ op });
    if (typeof reply.error === 'string') throw new BackupError(`the process holding the store (pid ${holder.pid ?? '?'}) answered: ${reply.error}`);
    return reply;
  };
  return {
    start: async () => (await ask('backup-start')) as unknown as BackupStart,
    stop: async () => (await ask('backup-stop')) as unknown as BackupStop,
  };
}

function localControl(store: Store): BackupControl {
  return { start: () => startOnlineBackup(store.db, 'ugs backup'), stop: () => stopOnlineBackup(store.db) };
}

async function openForReading(path: string, file: string) {
  const input = createReadStream(path);
  await new Promise<void>((done, fail) => {
    input.once('open', () => done());
    input.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'ENOENT' ? 'no such file' : error.code === 'EISDIR' ? 'it is a folder' : reasonOf(error);
      fail(new BackupError(`cannot read the backup ${file}: ${reason}`));
    });
  });
  return input;
}

/** What the folder holds, but the socket of the process holding it (this one). */
function contentsOf(dataDir: string): string[] {
  return readdirSync(dataDir).filter((name) => name !== HOLDER_SOCKET);
}

function empty(dataDir: string, names: string[]): void {
  for (const name of names) rmSync(join(dataDir, name), { recursive: true, force: true });
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
