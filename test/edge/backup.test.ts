import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceProcess, freePort, tempDir } from '../helpers/process.js';

const ADMIN = { BOOTSTRAP_ADMIN_EMAIL: 'root@acme.test', BOOTSTRAP_ADMIN_PASSWORD: 'Bootstrap-Pass-1' };
/** A first start creates its store: slow on a loaded machine (the tests assert no timings). */
const READY_MS = 180_000;

/** The service on `dataDir`, up, with an admin's token. */
async function startService(dataDir: string) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = ServiceProcess.start(['serve'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ...ADMIN });
  await proc.waitUntilReady(`${base}/readyz`, READY_MS);
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN.BOOTSTRAP_ADMIN_EMAIL, password: ADMIN.BOOTSTRAP_ADMIN_PASSWORD }),
  });
  expect(login.status).toBe(200);
  const token = ((await login.json()) as { token: string }).token;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { proc, call };
}

type Service = Awaited<ReturnType<typeof startService>>;

function interaction(extra: Record<string, unknown> = {}) {
  return { platform_id: 'openai', content_hash: createHash('sha256').update(randomBytes(16)).digest('hex'), ...extra };
}

/** Every interaction by walking the list's pages, and the total the list reports. */
async function listedInteractions(service: Service): Promise<{ total: number; ids: Set<string> }> {
  const ids = new Set<string>();
  let total = -1;
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const page = await service.call('GET', `/interactions?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    if (total < 0) total = page.body.total as number;
    for (const item of page.body.data as Array<{ id: string }>) ids.add(item.id);
    cursor = page.body.next_cursor as string | null;
  }
  return { total, ids };
}

async function totals(service: Service) {
  const users = await service.call('GET', '/users');
  const policies = await service.call('GET', '/policies');
  return { users: users.body.total as number, policies: policies.body.total as number };
}

function oneLine(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '');
}

describe('backups of the embedded store (ugs backup, ugs restore)', () => {
  const running: ServiceProcess[] = [];
  afterAll(async () => {
    for (const proc of running) await proc.stop('SIGKILL');
  });

  it('backs up a running service while creates arrive; the restore starts with what was acknowledged, consistent', async () => {
    const dir = tempDir();
    const source = join(dir, 'data');
    const service = await startService(source);
    running.push(service.proc);

    for (const name of ['Cards', 'IBANs', 'Keys']) {
      expect((await service.call('POST', '/policies', { name, action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] } })).status).toBe(201);
    }
    for (const email of ['dana@acme.test', 'eli@acme.test']) {
      expect((await service.call('POST', '/users/invite', { email, role: 'viewer' })).status).toBe(201);
    }
    const sealed = await service.call('POST', '/interactions', interaction({
      classifications: [{ type: 'EMAIL', value: 'j***@example.com', score: 0.98, start: 12, end: 28 }],
    }));
    expect(sealed.status).toBe(201);
    const acknowledged = new Set<string>([sealed.body.id as string]);
    for (let i = 0; i < 30; i++) {
      const created = await service.call('POST', '/interactions', interaction());
      expect(created.status).toBe(201);
      acknowledged.add(created.body.id as string);
    }
    const before = { ...(await totals(service)), acknowledged: new Set(acknowledged) };

    // Creates keep arriving, four at a time, for as long as the backup runs.
    let writing = true;
    const writer = async () => {
      while (writing) {
        const created = await service.call('POST', '/interactions', interaction());
        if (created.status === 201) acknowledged.add(created.body.id as string);
      }
    };
    const writers = Promise.all([writer(), writer(), writer(), writer()]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const backupFile = join(dir, 'store.backup');
    const backup = await ServiceProcess.run(['backup', backupFile], { DATA_DIR: source }, { killAfterMs: 120_000 });
    writing = false;
    await writers;
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(new RegExp(`^backup of ${source} written to ${backupFile} \\(.* MiB\\), with the key file: `));
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);
    expect(acknowledged.size).toBeGreaterThan(before.acknowledged.size); // creates did arrive during the backup
    expect(await service.proc.stop()).toBe(0);

    const target = join(dir, 'restored');
    const restore = await ServiceProcess.run(['restore', backupFile], { DATA_DIR: target }, { killAfterMs: 180_000 });
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(/^restored the backup of .* \(service v\d+\.\d+\.\d+\) into .*; the key file came with it\n$/);
    expect(statSync(join(target, 'data-encryption.key')).mode & 0o777).toBe(0o600);

    const restored = await startService(target);
    running.push(restored.proc);
    const { total, ids } = await listedInteractions(restored);
    expect(total).toBe(ids.size);
    for (const id of before.acknowledged) expect(ids.has(id)).toBe(true);
    for (const id of ids) expect(acknowledged.has(id)).toBe(true); // nothing that was not acknowledged
    expect(await totals(restored)).toEqual({ users: before.users, policies: before.policies });
    const read = await restored.call('GET', `/interactions/${sealed.body.id as string}`);
    expect((read.body.classifications as Array<{ value: string }>)[0]!.value).toBe('j***@example.com'); // the key came along
    expect(await restored.proc.stop()).toBe(0);

    // With no process holding the folder, the command opens the store itself.
    const offline = await ServiceProcess.run(['backup', join(dir, 'offline.backup'), '--without-key'], { DATA_DIR: target }, { killAfterMs: 120_000 });
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain('without the key: a restore reads the detected values and webhook secrets only with the master key');
    const again = join(dir, 'again');
    const second = await ServiceProcess.run(['restore', join(dir, 'offline.backup')], { DATA_DIR: again }, { killAfterMs: 180_000 });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('the backup holds no key file: before the service starts, put the key file of master key');
    expect(existsSync(join(again, 'data-encryption.key'))).toBe(false);
    expect(existsSync(join(again, 'PG_VERSION'))).toBe(true);
  }, 900_000);

  it('fails with one line: no such file, not a backup, a folder not empty, a folder in use, nothing to back up', async () => {
    const dir = tempDir();
    const run = (args: string[], dataDir: string) => ServiceProcess.run(args, { DATA_DIR: dataDir }, { killAfterMs: 120_000 });

    const missing = await run(['restore', join(dir, 'nope.backup')], join(dir, 'a'));
    expect(missing.code).toBe(1);
    expect(oneLine(missing.stderr)).toEqual([`error: cannot read the backup ${join(dir, 'nope.backup')}: no such file`]);

    writeFileSync(join(dir, 'notes.txt'), 'not a backup\n');
    const text = await run(['restore', join(dir, 'notes.txt')], join(dir, 'b'));
    expect(text.code).toBe(1);
    expect(oneLine(text.stderr)).toEqual([`error: ${join(dir, 'notes.txt')}: it is not a backup made by \`ugs backup\``]);
    expect(readdirSync(join(dir, 'b'))).toEqual([]); // nothing left behind

    writeFileSync(join(dir, 'other.tar.gz'), gzipSync(Buffer.alloc(1024)));
    const other = await run(['restore', join(dir, 'other.tar.gz')], join(dir, 'c'));
    expect(other.code).toBe(1);
    expect(oneLine(other.stderr)).toEqual([`error: ${join(dir, 'other.tar.gz')}: it is not a backup made by \`ugs backup\``]);

    const full = join(dir, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'something'), 'x');
    const notEmpty = await run(['restore', join(dir, 'notes.txt')], full);
    expect(notEmpty.code).toBe(1);
    expect(oneLine(notEmpty.stderr)).toEqual([`error: ${full} is not empty: restore into an empty or new folder, or add --force to replace what it holds`]);
    expect(readdirSync(full)).toEqual(['something']);

    const nothing = await run(['backup', join(dir, 'x.backup')], join(dir, 'empty'));
    expect(nothing.code).toBe(1);
    expect(oneLine(nothing.stderr)).toEqual([`error: there is no embedded store in ${join(dir, 'empty')} to back up`]);
    expect(existsSync(join(dir, 'empty', 'PG_VERSION'))).toBe(false);

    const exists = await run(['backup', join(dir, 'notes.txt')], join(dir, 'empty'));
    expect(exists.code).toBe(1);
    expect(oneLine(exists.stderr)).toEqual([`error: ${join(dir, 'notes.txt')} exists already: choose another name`]);

    // A running service's folder: neither a restore over it nor a second service.
    const held = join(dir, 'held');
    const service = await startService(held);
    running.push(service.proc);
    const over = await run(['restore', join(dir, 'notes.txt'), '--force'], held);
    expect(over.code).toBe(1);
    expect(oneLine(over.stderr)).toEqual([
      `error: ${held} is in use by a running process (pid ${service.proc.child.pid}): stop it before restoring into its folder`,
    ]);
    const port = await freePort();
    const second = await ServiceProcess.run(['serve'], { DATA_DIR: held, PORT: String(port), HOST: '127.0.0.1' }, { killAfterMs: 120_000 });
    expect(second.code).toBe(1);
    expect(oneLine(second.stderr)).toEqual([
      `error: cannot open the embedded store in ${held}: it is in use by another process (pid ${service.proc.child.pid}): one process at a time may open it`,
    ]);
    expect(await service.proc.stop()).toBe(0);
  }, 600_000);
});
