import { closeSync, fsyncSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Flushes a file, or a directory's entries (a new file's name survives a crash of the machine once its directory is synced). */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes every file and folder under `path`, and `path` itself (sockets and links are left alone). */
export function fsyncTree(path: string): void {
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) fsyncTree(join(path, entry.name));
    else if (entry.isFile()) fsyncPath(join(path, entry.name));
  }
  fsyncPath(path);
}
