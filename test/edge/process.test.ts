import { request as httpRequest, Agent } from 'node:http';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceProcess, freePort, tempDir } from '../helpers/process.js';
import { STORES, createPostgresDatabase } from '../helpers/stores.js';

async function login(base: string, email: string, password: string) {
  const response = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe.each(STORES)('the service as a process [%s]', (kind) => {
  let storeEnv: Record<string, string>;
  const cleanups: Array<() => Promise<void>> = [];
  // Each test gets an empty store of its own.
  beforeEach(async () => {
    if (kind === 'postgres') {
      const database = await createPostgresDatabase();
      storeEnv = { DATABASE_URL: database.url };
      cleanups.push(database.drop);
    } else {
      storeEnv = { DATA_DIR: tempDir() };
    }
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('starts on an empty store, prints the first admin once, and keeps its data across a restart', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { ...storeEnv, PORT: String(port), HOST: '127.0.0.1' };
    const first = ServiceProcess.start(['serve'], env);
    // A first start creates and migrates the embedded store: slow on a loaded machine (tests assert no timings).
    await first.waitUntilReady(`${base}/readyz`, 60_000);
    const password = /password: (\S+)/.exec(first.stdout)?.[1];
    expect(password).toBeDefined();
    expect(first.stdout).toContain(`curl -s -X POST http://localhost:${port}/api/v1/auth/login`);
    const loggedIn = await login(base, 'admin@example.com', password!);
    expect(loggedIn.status).toBe(200);
    expect(first.stdout.match(/password: /g)).toHaveLength(1);
    expect(await first.stop()).toBe(0);
    const logLines = first.stdout.split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(2);
    expect(logLines.filter((line) => line.includes(password!))).toEqual([]);

    const second = ServiceProcess.start(['serve'], env);
    await second.waitUntilReady(`${base}/readyz`, 60_000);
    expect(second.stdout).not.toContain('first administrator');
    expect((await login(base, 'admin@example.com', password!)).status).toBe(200);
    const token = (await login(base, 'admin@example.com', password!)).body.token as string;
    const audit = await fetch(`${base}/api/v1/audit-log?action=auth.login`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await audit.json()) as { total: number }).total).toBe(3);
    expect(await second.stop()).toBe(0);
  }, 180_000);

  it('finishes a request in flight at SIGTERM, fails readiness meanwhile, then exits 0', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = ServiceProcess.start(['serve'], {
      ...storeEnv, PORT: String(port), HOST: '127.0.0.1',
      BOOTSTRAP_ADMIN_EMAIL: 'root@acme.test', BOOTSTRAP_ADMIN_PASSWORD: 'Bootstrap-Pass-1', SHUTDOWN_DELAY_MS: '1500',
    });
    await proc.waitUntilReady(`${base}/readyz`);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) => new Promise<number>((resolve, reject) => {
      httpRequest(`${base}${path}`, { agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)); })
        .on('error', reject).end();
    });
    expect(await get('/readyz')).toBe(200); // opens the keep-alive connection

    const body = JSON.stringify({ email: 'nobody@acme.test', password: 'Whatever-Pass-1' });
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/api/v1/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)); });
      req.on('error', reject);
      req.write(body.slice(0, 10)); // the request has started; the rest of the body comes after SIGTERM
      setTimeout(() => {
        proc.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 2500); // after the 1.5 s delay: the close is under way
      }, 300);
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(await get('/readyz')).toBe(503);
    expect(await inFlight).toBe(401); // answered in full, not cut
    expect(await proc.exited).toBe(0);
    expect(proc.stdout).toContain('shutdown complete');
    agent.destroy();
  });

  it('stops with a message naming a bad variable', async () => {
    const result = await ServiceProcess.run(['serve'], { ...storeEnv, PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT');
    expect(result.stderr).not.toContain('    at ');
  });

  it('creates another tenant and its admin from the CLI', async () => {
    const result = await ServiceProcess.run(
      ['tenant', 'create', '--name', 'Globex', '--admin-email', 'boss@globex.test', '--admin-password', 'Globex-Admin-42'],
      storeEnv,
    );
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created).toMatchObject({ tenant_id: expect.any(String), admin_email: 'boss@globex.test' });
    expect(created).not.toHaveProperty('admin_password');

    const port = await freePort();
    const proc = ServiceProcess.start(['serve'], { ...storeEnv, PORT: String(port), HOST: '127.0.0.1' });
    await proc.waitUntilReady(`http://127.0.0.1:${port}/readyz`);
    const loggedIn = await login(`http://127.0.0.1:${port}`, 'boss@globex.test', 'Globex-Admin-42');
    expect(loggedIn.status).toBe(200);
    expect((loggedIn.body.user as { tenant_id: string }).tenant_id).toBe(created.tenant_id);
    await proc.stop();

    const bad = await ServiceProcess.run(['tenant', 'create', '--name', 'NoAdmin'], storeEnv);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--admin-email');
    const weak = await ServiceProcess.run(['tenant', 'create', '--name', 'W', '--admin-email', 'w@w.test', '--admin-password', 'weak'], storeEnv);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('12 characters');
  });

  it.runIf(kind === 'postgres')('migrates once when two processes run `migrate` on one empty database at the same moment', async () => {
    const [first, second] = await Promise.all([ServiceProcess.run(['migrate'], storeEnv), ServiceProcess.run(['migrate'], storeEnv)]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const outputs = [first.stdout, second.stdout].sort();
    expect(outputs[0]).toMatch(/^applied: 0001_foundation, /);
    expect(outputs[1]).toBe('the schema is up to date\n');
  });
});
