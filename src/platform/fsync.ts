import { closeSync, fsyncSync, openSync } from 'node:fs';

/** Flushes a file, or a directory's entries (a new file's name survives a crash of the machine once its directory is synced). */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
