// The time from `serve` on a new DATA_DIR to /readyz answering 200, and the process's RSS then.
//   node bench/first-start.mjs [path/to/dist/cli.js] [runs]
// (default: this build's dist/cli.js, 5 runs; `npm run build` first). Each run starts in a new
// folder and is stopped with SIGTERM once ready.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cli = process.argv[2] ?? join(import.meta.dirname, '../dist/cli.js');
const runs = Number(process.argv[3] ?? 5);
const port = await new Promise((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = server.address();
    server.close(() => resolve(free));
  });
});

const seconds = [];
for (let run = 1; run <= runs; run++) {
  const folder = mkdtempSync(join(tmpdir(), 'ugs-first-start-'));
  const started = performance.now();
  const child = spawn(process.execPath, ['--max-semi-space-size=8', '--heap-growing-percent=50', cli, 'serve'], {
    env: {
      PATH: process.env.PATH, DATA_DIR: join(folder, 'data'), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
      BOOTSTRAP_ADMIN_PASSWORD: 'Bench-Password-1',
    },
    stdio: 'ignore',
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  while (!(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false))) {
    if (exited) throw new Error('the service exited before it was ready');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const elapsed = (performance.now() - started) / 1000;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
  seconds.push(elapsed);
  console.log(`run ${run}: ready in ${elapsed.toFixed(1)} s, RSS ${Math.round(rss)} MiB`);
  child.kill('SIGTERM');
  await new Promise((resolve) => (exited ? resolve() : child.on('exit', resolve)));
  rmSync(folder, { recursive: true, force: true });
}
seconds.sort((a, b) => a - b);
console.log(`median ${seconds[Math.floor(seconds.length / 2)].toFixed(1)} s, min ${seconds[0].toFixed(1)} s, max ${seconds.at(-1).toFixed(1)} s`);
