import { execFile } from 'node:child_process';
import { existsSync, fsyncSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { fsyncTree } from '../fsync.js';
import { EMBEDDED_SEED, plantSeed } from './embedded-seed.js';

/** How the embedded store runs; docs/embedded-store.md gives the measurements behind the defaults. */
export interface EmbeddedSettings {
  /**
   * A commit returns once its WAL is fsynced, so it survives a crash of the machine, and
   * checkpoints fsync the data files. Off, a commit reaches the OS page cache only: it
   * survives a crash of the process, not of the machine.
   */
  durableCommits: boolean;
  /** PostgreSQL's page cache inside the WASM memory; every MiB of it becomes resident once used. */
  sharedBuffersMb: number;
}

export const EMBEDDED_DEFAULTS: Readonly<EmbeddedSettings> = Object.freeze({
  durableCommits: true,
  sharedBuffersMb: 16,
});

/** Where a new store comes from, besides the settings. */
export interface NewStoreSource {
  /** In memory only: start from this dumped data folder (`PGlite.dumpDataDir`) instead of initdb's. */
  initialData?: Blob | undefined;
  /** A new folder is unpacked from this store seed (embedded-seed.ts; default EMBEDDED_SEED); initdb runs when the file is missing, or with null. */
  seed?: string | null | undefined;
}

/**
 * A PGlite on `dataDir` with the given settings. Without `dataDir` it lives in memory (tests),
 * starting from `initialData` when given, else from a new database. A new folder gets the build's
 * store seed, or initdb's files when there is none.
 */
export async function createPglite(dataDir: string | undefined, settings: EmbeddedSettings, source: NewStoreSource = {}): Promise<PGlite> {
  const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${settings.sharedBuffersMb}MB`];
  if (!dataDir) return PGlite.create({ startParams, ...(source.initialData ? { loadDataDir: source.initialData } : {}) });

  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const seed = source.seed === undefined ? EMBEDDED_SEED : source.seed;
    const seeded = seed !== null && await plantSeed(dataDir, seed, settings.durableCommits);
    if (!seeded) {
      await initDataDir(dataDir, startParams);
      // initdb's files were written without fsync.
      if (settings.durableCommits) fsyncTree(dataDir);
    }
  }
  if (!settings.durableCommits) return PGlite.create({ dataDir, startParams });

  const fs = new SyncingNodeFS(dataDir);
  const pglite = await PGlite.create({
    dataDir,
    fs,
    // Without -F PostgreSQL runs with fsync=on; fdatasync() is a no-op in PGlite's WASM libc, fsync() is not.
    startParams: [...startParams.filter((param) => param !== '-F'), '-c', 'wal_sync_method=fsync'],
  });
  if (!fs.syncing) {
    await pglite.close();
    throw new Error('This PGlite exposes no NODEFS to make fsync real: durable commits need @electric-sql/pglite 0.5, or turn them off');
  }
  return pglite;
}

/**
 * Runs initdb in a child process. In this process it would leave ~0.5 GB of scratch WASM memory
 * (a second PGlite, the initdb module and a copy of its heap) that V8 frees only on a major
 * garbage collection, which a small JS heap may never trigger: the service then held ~800 MB
 * for its whole life. The child gives that memory back to the system when it exits.
 */
async function initDataDir(dataDir: string, startParams: string[]): Promise<void> {
  const module = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const options = JSON.stringify({ dataDir, startParams });
  const script = `require(${JSON.stringify(module)}).PGlite.create(${options}).then((pg) => pg.close())`;
  await promisify(execFile)(process.execPath, ['-e', script]);
}

type Nodefs = {
  stream_ops: { fsync?: (stream: { nfd?: number }) => number };
  tryFSOperation(operation: () => void): void;
};

/**
 * PGlite's Node filesystem (Emscripten's NODEFS) has no fsync, and Emscripten answers an fsync
 * it cannot route with success: this one syncs the host file. Reaches into the Emscripten
 * module, hence the check by the caller that it took.
 */
class SyncingNodeFS extends NodeFS {
  syncing = false;

  override async init(pg: PGlite, options: Parameters<NodeFS['init']>[1]) {
    const { emscriptenOpts } = await super.init(pg, options);
    const installFsync = (module: unknown) => {
      const nodefs = (module as { NODEFS?: Nodefs }).NODEFS;
      if (!nodefs) return;
      nodefs.stream_ops.fsync = (stream) => {
        if (stream.nfd !== undefined) nodefs.tryFSOperation(() => fsyncSync(stream.nfd!));
        return 0;
      };
      this.syncing = true;
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), installFsync] } };
  }
}
