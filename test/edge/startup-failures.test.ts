import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceProcess, freePort, tempDir } from '../helpers/process.js';

const HANG_MS = 30_000;

/** What an operator reads: the process's stderr, which must be one line. */
function stderrLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '');
}

describe('a start that cannot go on exits non-zero with one line', () => {
  const servers: Array<{ close(): void }> = [];
  afterAll(() => servers.forEach((server) => server.close()));

  it('when its port is taken, before the store is created or anything loaded', async () => {
    const taken = createServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)));
    servers.push(taken);
    const dataDir = join(tempDir(), 'data');
    const started = Date.now();
    const result = await ServiceProcess.run(['serve'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' }, { killAfterMs: HANG_MS });
    expect(result.code).toBe(1);
    expect(stderrLines(result.stderr)).toEqual([`error: cannot listen on 127.0.0.1:${port}: the address is already in use (EADDRINUSE)`]);
    // Not even DATA_DIR (nor its key file, nor PG_VERSION): the store was never opened.
    expect(existsSync(dataDir)).toBe(false);
    expect(result.stdout).toBe('');
    // As fast as a bad variable (a few seconds at most on the loaded 2-core machine; it took ~50 s
    // when the store came first): the bound is loose, the folder above is the proof.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('when WEBHOOK_CA_FILE cannot be read, before opening any store', async () => {
    const cwd = tempDir();
    const result = await ServiceProcess.run(['serve'], { WEBHOOK_CA_FILE: '/nonexistent/ca.pem' }, { cwd, killAfterMs: HANG_MS });
    expect(result.code).toBe(1);
    expect(stderrLines(result.stderr)).toEqual([
      'error: Invalid configuration: WEBHOOK_CA_FILE="/nonexistent/ca.pem"; expected a readable PEM file of CA certificates (ENOENT)',
    ]);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it('when WEBHOOK_CA_FILE holds no certificate', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ca.pem'), 'not a certificate\n');
    const result = await ServiceProcess.run(['serve'], { WEBHOOK_CA_FILE: join(dir, 'ca.pem') }, { cwd: dir, killAfterMs: HANG_MS });
    expect(result.code).toBe(1);
    expect(stderrLines(result.stderr)).toEqual([
      `error: Invalid configuration: WEBHOOK_CA_FILE="${join(dir, 'ca.pem')}"; expected a PEM file of CA certificates`,
    ]);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('when its database stays unreachable for DATABASE_CONNECT_TIMEOUT_MS, after retrying', async () => {
    const port = await freePort(); // nothing listens there
    const started = Date.now();
    const result = await ServiceProcess.run(['serve'], {
      DATABASE_URL: `postgres://ugs:secret-password@127.0.0.1:${port}/governance`, DATABASE_CONNECT_TIMEOUT_MS: '1500',
    }, { killAfterMs: HANG_MS });
    expect(result.code).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // it retried before giving up
    const lines = stderrLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^error: cannot reach the database 127\\.0\\.0\\.1:${port}/governance: .*ECONNREFUSED.* \\(gave up after 1500 ms, DATABASE_CONNECT_TIMEOUT_MS\\)$`));
    expect(result.stdout + result.stderr).not.toContain('secret-password');
    expect(result.stdout).toContain('database not reachable yet; retrying');
  });

  it('and `migrate` the same way', async () => {
    const port = await freePort();
    const result = await ServiceProcess.run(['migrate'], {
      DATABASE_URL: `postgres://ugs@127.0.0.1:${port}/governance`, DATABASE_CONNECT_TIMEOUT_MS: '0',
    }, { killAfterMs: HANG_MS });
    expect(result.code).toBe(1);
    expect(stderrLines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain(`cannot reach the database 127.0.0.1:${port}/governance`);
  });

  it('when DATABASE_URL is set without DATA_ENCRYPTION_KEY, before connecting', async () => {
    const port = await freePort(); // nothing listens there: a connection attempt would show
    const result = await ServiceProcess.run(['serve'], {
      DATABASE_URL: `postgres://ugs@127.0.0.1:${port}/governance`, DATA_ENCRYPTION_KEY: '',
    }, { killAfterMs: HANG_MS });
    expect(result.code).toBe(1);
    expect(stderrLines(result.stderr)).toEqual(['error: Invalid configuration: DATA_ENCRYPTION_KEY=""; expected 32 random bytes in '
      + 'base64 (openssl rand -base64 32): it is required with DATABASE_URL']);
  });

  it('when DATA_ENCRYPTION_KEY is malformed, without showing it', async () => {
    const result = await ServiceProcess.run(['serve'], { DATA_DIR: tempDir(), DATA_ENCRYPTION_KEY: 'too-short-to-be-a-key' }, { killAfterMs: HANG_MS });
    expect(result.code).toBe(1);
    expect(stderrLines(result.stderr)).toEqual(['error: Invalid configuration: DATA_ENCRYPTION_KEY="<hidden>"; expected 32 random '
      + 'bytes in base64 (openssl rand -base64 32)']);
  });

  it('when the embedded store\'s key file is readable by others', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'data-encryption.key'), `${'A'.repeat(43)}=\n`, { mode: 0o644 });
    const result = await ServiceProcess.run(['serve'], { DATA_DIR: dir, PORT: String(await freePort()), HOST: '127.0.0.1' }, { killAfterMs: HANG_MS });
    expect(result.code).toBe(1);
    const keyFile = join(dir, 'data-encryption.key');
    expect(stderrLines(result.stderr)).toEqual([`error: the key file ${keyFile} has mode 0644, expected 0600 (chmod 600 ${keyFile})`]);
  });
});
