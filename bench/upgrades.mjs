// The upgrade part of `npm run bench`: the upgrade test from every earlier release (each as it
// shipped, on both stores; UPGRADE_RELEASES=all), then, on PostgreSQL, each migration's time at
// 1,000,000 interactions (bench/migrations.mjs). CI runs the same test from two releases only.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ADMIN_URL } from './lib/stores.mjs';

const ROOT = join(import.meta.dirname, '..');

function run(command, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

export async function runUpgrades() {
  console.log('\n## Upgrades from every release');
  await run('npx', ['vitest', 'run', 'test/platform/processes/upgrades.test.ts'], {
    UPGRADE_RELEASES: 'all', ...(ADMIN_URL ? { TEST_DATABASE_URL: ADMIN_URL } : {}),
  });
  if (!ADMIN_URL) {
    console.log('migrations at size: skipped (PostgreSQL only: set BENCH_DATABASE_URL)');
    return;
  }
  console.log('\n## Migrations at 1,000,000 interactions');
  await run(process.execPath, ['bench/migrations.mjs'], { BENCH_DATABASE_URL: ADMIN_URL });
}
