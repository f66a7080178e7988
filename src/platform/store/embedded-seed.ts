import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fsyncPath, fsyncTree } from '../fsync.js';
import { type ArchiveItem, contentOf, extractEntry, folderItems, readArchive, writeArchive } from './folder-archive.js';

/**
 * A new embedded store made by the build (`npm run build`): PGlite's initdb, then the migrations
 * of that build, closed cleanly and archived beside the built code. A first start unpacks it
 * instead of running initdb (in a child process) and every migration.
 */
export const EMBEDDED_SEED = fileURLToPath(new URL('../../embedded-store-seed.tar.gz', import.meta.url));

/** Written last, and synced after everything else: a folder without it is a new one, and is seeded again. */
const VERSION_FILE = 'PG_VERSION';

/**
 * Unpacks `seed` into `dataDir`, a folder without a store; false when there is no seed file.
 * With `durable`, every file is synced before PG_VERSION appears.
 */
export async function plantSeed(dataDir: string, seed: string, durable: boolean): Promise<boolean> {
  if (!existsSync(seed)) return false;
  let version: Buffer | undefined;
  for await (const entry of readArchive(createReadStream(seed))) {
    if (entry.name === VERSION_FILE) version = await contentOf(entry);
    else await extractEntry(entry, dataDir);
  }
  if (!version) throw new Error(`the store seed ${seed} holds no ${VERSION_FILE}`);
  writeVersionLast(dataDir, version, durable);
  return true;
}

/** Writes PG_VERSION into a folder otherwise complete; `durable`: once everything else is synced, and synced itself. */
export function writeVersionLast(dataDir: string, version: Buffer, durable: boolean): void {
  if (durable) fsyncTree(dataDir);
  writeFileSync(join(dataDir, VERSION_FILE), version, { mode: 0o600 });
  if (durable) {
    fsyncPath(join(dataDir, VERSION_FILE));
    fsyncPath(dataDir);
  }
}

/**
 * Writes the seed to `file`: `makeStore` makes a migrated store in the folder it is given and
 * closes it; the folder is archived with PG_VERSION last, then removed.
 */
export async function writeSeed(file: string, makeStore: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ugs-seed-'));
  try {
    await makeStore(dataDir);
    const draft = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeArchive(seedItems(dataDir), createWriteStream(draft));
    renameSync(draft, file);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function* seedItems(dataDir: string): AsyncGenerator<ArchiveItem> {
  yield* folderItems(dataDir, (name) => name !== VERSION_FILE);
  yield { name: VERSION_FILE, type: 'file', path: join(dataDir, VERSION_FILE) };
}
