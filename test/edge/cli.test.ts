import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ServiceProcess, tempDir } from '../helpers/process.js';

// Generous for a loaded machine; a command that hangs is killed then and fails with code null.
const HANG_MS = 10_000;

async function cli(args: string[]) {
  const cwd = tempDir('ugs-cli-');
  const started = Date.now();
  const result = await ServiceProcess.run(args, {}, { cwd, killAfterMs: HANG_MS });
  return { ...result, ms: Date.now() - started, createdData: existsSync(join(cwd, 'data')) };
}

describe('the command line', () => {
  it.each([
    [['--help']], [['-h']], [['help']], [['help', 'migrate']], [['migrate', '--help']], [['serve', '-h']],
    [['worker', '--help']], [['tenant', '--help']], [['tenant', 'create', '--help']], [['help', 'tenant']],
    [['backup', '--help']], [['help', 'restore']],
  ])('`ugs %s` prints the usage and exits 0 without opening a store', async (args) => {
    const result = await cli(args);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: ugs/m);
    expect(result.createdData).toBe(false);
  });

  it('names every command in the main help', async () => {
    const { stdout } = await cli(['--help']);
    for (const command of ['serve', 'worker', 'migrate', 'tenant', 'keys', 'backup', 'restore', 'version', 'help']) expect(stdout).toContain(command);
  });

  it('prints the version for `version`, `--version` and `-v`', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
    for (const args of [['version'], ['--version'], ['-v']]) {
      const result = await cli(args);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(`v${version}`);
      expect(result.createdData).toBe(false);
    }
  });

  it.each([
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['tenant'], /Usage: ugs tenant/],
    [['tenant', 'create'], /required option '--name <name>' not specified/],
    [['tenant', 'create', '--name', 'Globex'], /required option '--admin-email <email>' not specified/],
    [['serve', '--port', '80'], /unknown option '--port'/],
    [['migrate', 'now'], /too many arguments/],
    [['backup'], /missing required argument 'file'/],
    [['restore', 'a', 'b'], /too many arguments/],
  ])('`ugs %s` says what is wrong and exits 2 at once, without opening a store', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.createdData).toBe(false);
  });

  it('exits once a command that opens the store is done', async () => {
    const dataDir = tempDir('ugs-cli-data-');
    const cwd = tempDir('ugs-cli-');
    // A new folder is the build's store seed, migrated already.
    const migrated = await ServiceProcess.run(['migrate'], { DATA_DIR: dataDir }, { cwd, killAfterMs: 60_000 });
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toBe('the schema is up to date\n');
    const again = await ServiceProcess.run(['migrate'], { DATA_DIR: dataDir }, { cwd, killAfterMs: 60_000 });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('the schema is up to date');
  });
});
