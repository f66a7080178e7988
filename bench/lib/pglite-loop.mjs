// The embedded store's limit: bench/lib/pglite-loop-child.mjs in a Node process of its own (its memory and
// CPU are its own), on a fresh data folder, while no service runs.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { trackChild } from './cleanup.mjs';
import { startProbe } from './probe.mjs';
import { ROOT } from './service.mjs';
import { freshEmbeddedStore } from './stores.mjs';

const CHILD = fileURLToPath(new URL('./pglite-loop-child.mjs', import.meta.url));

/**
 * `{ tps, transactions, p50, p99 (ms), rssAfterOpenMiB, hwmMiB, cpuPercent, waitingPercent }` of the raw loop over
 * `seconds`; `hwmMiB` is the process's peak RSS over its whole life (opening and migrating included), `waitingPercent`
 * the share of that life its main thread waited for a CPU.
 */
export async function pgliteLoopLimit(seconds) {
  const store = await freshEmbeddedStore();
  try {
    const child = trackChild(spawn(process.execPath, [CHILD, store.dataDir, String(seconds)], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'],
    }));
    const probe = startProbe({ pid: child.pid });
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    const code = await new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    const { hwmMiB, waitingPercent } = probe.stop();
    if (code !== 0) throw new Error(`raw PGlite loop exited with ${code}`);
    return { ...JSON.parse(out), hwmMiB, waitingPercent };
  } finally {
    await store.dispose();
  }
}
