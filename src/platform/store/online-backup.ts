import { type Kysely, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { asTableOwner } from './tenant-scope.js';

/** Where the write-ahead log stood when the backup started: its files from this one on belong to the backup. */
export interface BackupStart {
  startWalFile: string;
}

/** What ends a backup: the files PostgreSQL wants beside the copied folder, and the last log file the restore needs. */
export interface BackupStop {
  stopWalFile: string;
  backupLabel: string;
  tablespaceMap: string;
}

/**
 * PostgreSQL's low-level backup (`pg_backup_start`, a checkpoint at once): until the stop, every
 * page written to is logged whole, so a copy of the folder taken meanwhile, however torn by the
 * writes going on, is made consistent by replaying the log up to the stop. The embedded store
 * has one session, so one backup at a time.
 */
export async function startOnlineBackup(db: Kysely<Database>, label: string): Promise<BackupStart> {
  const { rows } = await asTableOwner(() => sql<{ file: string }>`
    select pg_walfile_name(lsn) as file from pg_backup_start(${label}, true) as lsn`.execute(db));
  return { startWalFile: rows[0]!.file };
}

/** Ends the backup (nothing archives the log here, so nothing to wait for). */
export async function stopOnlineBackup(db: Kysely<Database>): Promise<BackupStop> {
  const { rows } = await asTableOwner(() => sql<{ file: string; labelfile: string; spcmapfile: string | null }>`
    select pg_walfile_name(lsn) as file, labelfile, spcmapfile from pg_backup_stop(false)`.execute(db));
  const row = rows[0]!;
  return { stopWalFile: row.file, backupLabel: row.labelfile, tablespaceMap: row.spcmapfile ?? '' };
}
