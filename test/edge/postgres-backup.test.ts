import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceProcess, freePort, tempDir } from '../helpers/process.js';
import { createPostgresDatabase } from '../helpers/stores.js';

const ADMIN = { BOOTSTRAP_ADMIN_EMAIL: 'root@acme.test', BOOTSTRAP_ADMIN_PASSWORD: 'Bootstrap-Pass-1' };

async function startService(databaseUrl: string) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = ServiceProcess.start(['serve'], { DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', ...ADMIN });
  await proc.waitUntilReady(`${base}/readyz`, 120_000);
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN.BOOTSTRAP_ADMIN_EMAIL, password: ADMIN.BOOTSTRAP_ADMIN_PASSWORD }),
  });
  const token = ((await login.json()) as { token: string }).token;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const counts = async () => ({
    interactions: (await call('GET', '/interactions?limit=500')).body,
    users: (await call('GET', '/users')).body.total,
    policies: (await call('GET', '/policies')).body.total,
  });
  return { proc, call, counts };
}

describe.runIf(process.env.TEST_DATABASE_URL)('backups on PostgreSQL: pg_dump, pg_restore, as docs/operations.md says', () => {
  const drops: Array<() => Promise<void>> = [];
  const running: ServiceProcess[] = [];
  afterAll(async () => {
    for (const proc of running) await proc.stop('SIGKILL');
    for (const drop of drops) await drop();
  });

  it('restores a dump of a database the service filled into a new database, and the service starts on it with equal counts', async () => {
    const source = await createPostgresDatabase();
    drops.push(source.drop);
    const service = await startService(source.url);
    running.push(service.proc);
    for (const name of ['Cards', 'IBANs']) {
      expect((await service.call('POST', '/policies', { name, action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] } })).status).toBe(201);
    }
    expect((await service.call('POST', '/users/invite', { email: 'dana@acme.test', role: 'viewer' })).status).toBe(201);
    const sealed = await service.call('POST', '/interactions', {
      platform_id: 'openai', content_hash: createHash('sha256').update(randomBytes(16)).digest('hex'),
      classifications: [{ type: 'EMAIL', value: 'j***@example.com', score: 0.98, start: 12, end: 28 }],
    });
    expect(sealed.status).toBe(201);
    for (let i = 0; i < 40; i++) {
      const hash = createHash('sha256').update(randomBytes(16)).digest('hex');
      expect((await service.call('POST', '/interactions', { platform_id: 'mistral', content_hash: hash })).status).toBe(201);
    }
    const before = await service.counts();

    // The dump is taken while the service runs: pg_dump reads one snapshot.
    const dump = join(tempDir(), 'ugs.dump');
    execFileSync('pg_dump', ['--format=custom', `--file=${dump}`, source.url]);
    expect(await service.proc.stop()).toBe(0);

    const target = await createPostgresDatabase();
    drops.push(target.drop);
    execFileSync('pg_restore', ['--exit-on-error', `--dbname=${target.url}`, dump]);
    execFileSync('vacuumdb', ['--analyze-only', '--quiet', `--dbname=${target.url}`]);

    const restored = await startService(target.url);
    running.push(restored.proc);
    const after = await restored.counts();
    expect(after.users).toBe(before.users);
    expect(after.policies).toBe(before.policies);
    expect(before.interactions.total).toBe(41);
    expect(after.interactions.total).toBe(41);
    expect((after.interactions.data as unknown[]).length).toBe(41);
    expect((after.interactions.data as Array<{ id: string }>).map((row) => row.id).sort())
      .toEqual((before.interactions.data as Array<{ id: string }>).map((row) => row.id).sort());
    const read = await restored.call('GET', `/interactions/${sealed.body.id as string}`);
    expect((read.body.classifications as Array<{ value: string }>)[0]!.value).toBe('j***@example.com');
    expect(await restored.proc.stop()).toBe(0);
  }, 600_000);

  it('`ugs backup` and `ugs restore` say that PostgreSQL has its own tools', async () => {
    const port = await freePort(); // nothing listens there: the commands must not connect
    const env = { DATABASE_URL: `postgres://ugs@127.0.0.1:${port}/governance` };
    const backup = await ServiceProcess.run(['backup', join(tempDir(), 'x.backup')], env, { killAfterMs: 60_000 });
    expect(backup.code).toBe(1);
    expect(backup.stderr).toBe('error: `ugs backup` copies the embedded store; on PostgreSQL use pg_dump and pg_restore (docs/operations.md, "Backups")\n');
    const restore = await ServiceProcess.run(['restore', join(tempDir(), 'x.backup')], env, { killAfterMs: 60_000 });
    expect(restore.code).toBe(1);
    expect(restore.stderr).toBe('error: `ugs restore` restores the embedded store; on PostgreSQL use pg_dump and pg_restore (docs/operations.md, "Backups")\n');
  });
});
