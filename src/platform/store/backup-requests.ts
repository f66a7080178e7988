import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { HolderHandler, HolderSession } from './data-dir-holder.js';
import { startOnlineBackup, stopOnlineBackup } from './online-backup.js';

/**
 * How the process holding an embedded store answers `ugs backup` from another process: it starts
 * and stops PostgreSQL's online backup, and the other process copies the folder in between. A
 * backup whose connection ends before its stop (the command killed) is stopped then.
 */
export function backupRequests(db: Kysely<Database>): HolderHandler {
  let running: HolderSession | undefined;
  return async (request, session) => {
    if (request.op === 'backup-start') {
      if (running) return { error: 'another backup of this store is under way' };
      running = session;
      try {
        const start = await startOnlineBackup(db, 'ugs backup');
        session.onClose(async () => {
          if (running !== session) return;
          running = undefined;
          await stopOnlineBackup(db);
        });
        return { ...start };
      } catch (error) {
        running = undefined;
        throw error;
      }
    }
    if (request.op === 'backup-stop') {
      if (running !== session) return { error: 'no backup was started on this connection' };
      const stop = await stopOnlineBackup(db);
      running = undefined;
      return { ...stop };
    }
    return { error: `unknown request ${JSON.stringify(request.op)}` };
  };
}
