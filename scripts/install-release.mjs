#!/usr/bin/env node
// Installs an earlier release as it shipped and prints the path of its CLI:
//   node scripts/install-release.mjs 0.7.0
// Its files at its commit (releases.json), its own dependencies from its own lockfile, compiled
// by its own TypeScript (its console is not built: only the API and the CLI are used). Kept in the
// temp folder under its commit, which never changes, so a later run on this machine starts from
// it. One install of a release at a time: another one waits for it (two test files may ask at once).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
/** Written last in a release's folder: a folder without it is an install cut short. */
const INSTALLED_MARK = '.ugs-release-installed';

export const RELEASES = JSON.parse(readFileSync(join(ROOT, 'releases.json'), 'utf8'));

/** @returns {Promise<{ version: string, commit: string, dir: string, cli: string }>} */
export async function installRelease(version) {
  const commit = RELEASES[version];
  if (!commit) throw new Error(`no release ${version} in releases.json (${Object.keys(RELEASES).join(', ')})`);
  const home = join(tmpdir(), 'ugs-releases');
  const dir = join(home, commit);
  const installed = { version, commit, dir, cli: join(dir, 'dist/cli.js') };
  if (existsSync(join(dir, INSTALLED_MARK))) return installed;

  mkdirSync(home, { recursive: true });
  const lock = `${dir}.lock`;
  while (!tryLock(lock)) {
    if (existsSync(join(dir, INSTALLED_MARK))) return installed;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (existsSync(join(dir, INSTALLED_MARK))) {
    rmSync(lock, { recursive: true, force: true });
    return installed;
  }
  const building = mkdtempSync(join(home, `${commit.slice(0, 12)}-installing-`));
  try {
    await run('sh', ['-c', 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"', 'sh', ROOT, commit, building]);
    await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], building);
    await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], building);
    if (!existsSync(join(building, 'dist/cli.js'))) throw new Error(`the build of ${version} (${commit}) has no dist/cli.js`);
    writeFileSync(join(building, INSTALLED_MARK), `${version}\n`);
    // A folder an install cut short left (no mark) is replaced.
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
    return installed;
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Takes the lock folder; one left by an install that died (older than 5 minutes: an install takes under one) is taken over. */
function tryLock(lock) {
  try {
    mkdirSync(lock);
    return true;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
    const stale = Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 5 * 60_000;
    if (stale) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

function run(command, args, cwd = ROOT) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const versions = process.argv.slice(2);
  if (versions.length === 0) {
    process.stderr.write(`usage: node scripts/install-release.mjs VERSION... (${Object.keys(RELEASES).join(', ')})\n`);
    process.exit(2);
  }
  for (const { cli } of await Promise.all(versions.map(installRelease))) process.stdout.write(`${cli}\n`);
}
