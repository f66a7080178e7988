import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';

/** How the embedded store runs; docs/embedded-store.md gives the measurements behind the defaults. */
export interface EmbeddedSettings {
  /** PostgreSQL's page cache inside the WASM memory; every MiB of it becomes resident once used. */
  sharedBuffersMb: number;
}

export const EMBEDDED_DEFAULTS: Readonly<EmbeddedSettings> = Object.freeze({
  sharedBuffersMb: 32,
});

/** A PGlite on `dataDir` (undefined: in memory, for tests) with the given settings. */
export async function createPglite(dataDir: string | undefined, settings: EmbeddedSettings): Promise<PGlite> {
  const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${settings.sharedBuffersMb}MB`];
  if (!dataDir) return PGlite.create({ startParams });

  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await initDataDir(dataDir, startParams);
  return PGlite.create({ dataDir, startParams });
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
