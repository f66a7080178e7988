import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { type ArchiveEntry, type ArchiveItem, contentOf, extractEntry, folderItems, readArchive, writeArchive } from './folder-archive.js';
import type { BackupStart, BackupStop } from './online-backup.js';
import { writeVersionLast } from './embedded-seed.js';

/** The first entry of every backup: what it is, and what it needs to be read. */
export const BACKUP_MANIFEST = 'ugs-backup.json';
const BACKUP_FORMAT = 'ugs-embedded-store-backup';

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: 1;
  service_version: string;
  created_at: string;
  /** Whether the key file of the folder is in the backup (without it, sealed values need the key from elsewhere). */
  key_file_included: boolean;
  /** The master key the data was sealed under when the backup was taken (its id, never the key). */
  master_key_id: string | null;
}

/** Starts and stops PostgreSQL's online backup in the process that has the store open. */
export interface BackupControl {
  start(): Promise<BackupStart>;
  stop(): Promise<BackupStop>;
}

/** What PostgreSQL keeps at the top of its folder: nothing else there is copied (the holder's socket, the key file, an operator's files). */
const STORE_TOP_LEVEL = /^(?:base|global|pg_[a-z_]+|PG_VERSION|postgresql\.conf|postgresql\.auto\.conf|pg_hba\.conf|pg_ident\.conf)$/;
/** Folders copied empty, their content remade at start, as pg_basebackup does (pg_wal's is added at the end, see below). */
const FOLDERS_COPIED_EMPTY = new Set(['pg_wal', 'pg_dynshmem', 'pg_notify', 'pg_replslot', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans']);
const WAL_SEGMENT = /^[0-9A-F]{24}$/;


/**
 * Writes a backup of the store in `dataDir` to `output` while the store keeps serving: the
 * manifest, the folder copied between the start and the stop of an online backup, the log files
 * from the start to the stop (what makes the copy consistent), PostgreSQL's backup label, then
 * `added`: the folder's files that are not the store's (its key file) are the caller's to add.
 */
export async function writeBackup(
  dataDir: string, control: BackupControl, output: Writable, manifest: BackupManifest, added: ArchiveItem[],
): Promise<void> {
  await writeArchive(backupItems(dataDir, control, manifest, added), output);
}

async function* backupItems(
  dataDir: string, control: BackupControl, manifest: BackupManifest, added: ArchiveItem[],
): AsyncGenerator<ArchiveItem> {
  yield { name: BACKUP_MANIFEST, type: 'file', content: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) };
  const start = await control.start();
  yield* folderItems(dataDir, copied);
  const stop = await control.stop();
  yield* walItems(dataDir, start, stop);
  yield { name: 'backup_label', type: 'file', content: Buffer.from(stop.backupLabel) };
  if (stop.tablespaceMap) yield { name: 'tablespace_map', type: 'file', content: Buffer.from(stop.tablespaceMap) };
  yield* added;
}

function copied(name: string, isDirectory: boolean): boolean {
  const parts = name.split('/');
  if (parts.length === 1) return STORE_TOP_LEVEL.test(name);
  if (isDirectory) return true;
  const base = parts.at(-1)!;
  return !FOLDERS_COPIED_EMPTY.has(parts[0]!) && base !== 'pg_internal.init' && !base.startsWith('pgsql_tmp');
}

/** The log's files from the backup's start to its stop, all of them: a missing one makes the backup useless. */
async function* walItems(dataDir: string, start: BackupStart, stop: BackupStop): AsyncGenerator<ArchiveItem> {
  const wal = join(dataDir, 'pg_wal');
  const names = (await readdir(wal)).sort();
  const needed = names.filter((name) => WAL_SEGMENT.test(name) && name >= start.startWalFile && name <= stop.stopWalFile);
  const segmentBytes = (await stat(join(wal, start.startWalFile)).catch(() => undefined))?.size ?? 0;
  const expected = segmentBytes ? segmentNumber(stop.stopWalFile, segmentBytes) - segmentNumber(start.startWalFile, segmentBytes) + 1 : -1;
  if (needed.length !== expected) {
    throw new Error(`the write-ahead log from ${start.startWalFile} to ${stop.stopWalFile} is no longer all in ${wal}`);
  }
  for (const name of [...needed, ...names.filter((file) => file.endsWith('.history'))]) {
    yield { name: `pg_wal/${name}`, type: 'file', path: join(wal, name) };
  }
}

/** A log file's position in the log: its name is the timeline, then the segment number split in two. */
function segmentNumber(name: string, segmentBytes: number): number {
  const segmentsPerId = 0x1_0000_0000 / segmentBytes;
  return Number.parseInt(name.slice(8, 16), 16) * segmentsPerId + Number.parseInt(name.slice(16, 24), 16);
}

/** The file is not a backup `ugs backup` made, or not all of one. */
export class NotABackupError extends Error {}

/**
 * Unpacks a backup into `dataDir` (an empty folder), synced, PG_VERSION last: a restore cut short
 * leaves no folder that looks like a store. Returns the manifest.
 */
export async function unpackBackup(input: Readable, dataDir: string): Promise<BackupManifest> {
  const entries = readArchive(input);
  const manifest = await readManifest(entries);
  let version: Buffer | undefined;
  let labelled = false;
  try {
    for await (const entry of entries) {
      if (entry.name === BACKUP_MANIFEST) throw new NotABackupError('it holds two manifests');
      labelled ||= entry.name === 'backup_label';
      if (entry.name === 'PG_VERSION') version = await contentOf(entry);
      else await extractEntry(entry, dataDir);
    }
  } catch (error) {
    if (error instanceof NotABackupError) throw error;
    throw new NotABackupError(`it is damaged or cut short (${(error as Error).message})`);
  }
  if (!version || !labelled) throw new NotABackupError('it is cut short (no PG_VERSION or backup_label)');
  writeVersionLast(dataDir, version, true);
  return manifest;
}

async function readManifest(entries: AsyncGenerator<ArchiveEntry>): Promise<BackupManifest> {
  try {
    const first = await entries.next();
    if (first.done || first.value.name !== BACKUP_MANIFEST) throw new Error('no manifest');
    const manifest = JSON.parse((await contentOf(first.value)).toString('utf8')) as BackupManifest;
    if (manifest.format !== BACKUP_FORMAT || manifest.format_version !== 1) throw new Error('another format');
    return manifest;
  } catch {
    throw new NotABackupError('it is not a backup made by `ugs backup`');
  }
}
