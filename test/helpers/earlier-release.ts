import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './process.js';

const ROOT = join(import.meta.dirname, '../..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT }).toString().trim();

/** The commit of the release before `path` was added: the build an upgrade to it starts from. */
export function releaseBefore(path: string): string {
  const added = git('log', '--diff-filter=A', '--format=%H', '--', path).split('\n').at(-1);
  if (!added) throw new Error(`${path} is not in the history`);
  return git('rev-parse', `${added}^`);
}

/**
 * That commit's server, built in a checkout of its own (its dependencies are this build's: every
 * package its lockfile names must be here at the same version; packages added since do not
 * matter). Returns its CLI and a function that removes the checkout.
 */
export function buildRelease(commit: string): { cli: string; remove: () => void } {
  const dir = join(tempDir('ugs-release-'), 'checkout');
  git('worktree', 'add', '--detach', dir, commit);
  const remove = () => {
    git('worktree', 'remove', '--force', dir);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const changed = changedDependencies(commit);
    if (changed.length > 0) {
      throw new Error(`the dependencies changed since ${commit} (${changed.slice(0, 3).join(', ')}): this helper reuses this build's`);
    }
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: dir });
    const cli = join(dir, 'dist/cli.js');
    if (!existsSync(cli)) throw new Error(`the build of ${commit} has no dist/cli.js`);
    return { cli, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The packages of `commit`'s lockfile that this build lacks or has at another version. */
function changedDependencies(commit: string): string[] {
  type Lock = { packages: Record<string, { version?: string }> };
  const then = JSON.parse(git('show', `${commit}:package-lock.json`)) as Lock;
  const now = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
  return Object.entries(then.packages)
    .filter(([path, entry]) => path !== '' && now.packages[path]?.version !== entry.version)
    .map(([path]) => path);
}

/** Each release's commit (releases.json): tags do not travel with every clone, this file does. */
export const RELEASES: Readonly<Record<string, string>> = JSON.parse(readFileSync(join(ROOT, 'releases.json'), 'utf8'));

/**
 * The releases an upgrade test starts from, newest first: the previous one and the oldest by
 * default; every one with UPGRADE_RELEASES=all, or those listed (UPGRADE_RELEASES=0.3.0,0.5.0).
 */
export function releasesToTest(): string[] {
  const versions = Object.keys(RELEASES).reverse();
  const wanted = process.env.UPGRADE_RELEASES?.trim();
  if (wanted === 'all') return versions;
  if (!wanted) return [versions[0]!, versions.at(-1)!];
  const listed = wanted.split(',').map((version) => version.trim().replace(/^v/, ''));
  const unknown = listed.filter((version) => !RELEASES[version]);
  if (unknown.length > 0) throw new Error(`UPGRADE_RELEASES names no release ${unknown.join(', ')} (releases.json: ${versions.join(', ')})`);
  return listed;
}

export interface InstalledRelease {
  version: string;
  commit: string;
  /** Its dist/cli.js. */
  cli: string;
}

/**
 * A release's server as it shipped, with its own dependencies and its own build
 * (scripts/install-release.mjs, which keeps it for later runs on this machine).
 */
export function installRelease(version: string): Promise<InstalledRelease> {
  const commit = RELEASES[version];
  if (!commit) return Promise.reject(new Error(`no release ${version} in releases.json`));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(ROOT, 'scripts/install-release.mjs'), version], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the install of ${version} failed:\n${stderr}`));
      else resolve({ version, commit, cli: stdout.trim().split('\n').at(-1)! });
    });
  });
}
