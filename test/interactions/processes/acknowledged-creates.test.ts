import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, ServiceProcess, tempDir } from '../../helpers/process.js';
import { interactionBody } from '../../helpers/interactions-fixtures.js';
import { createPostgresDatabase, STORES } from '../../helpers/stores.js';

const ADMIN = { email: 'admin@durability.test', password: 'Durable-Password-42' };
const CLIENTS = 16;
const KILL_AFTER = 300;

// A 201 means committed: killed right after answering, the service must find on restart every
// interaction it acknowledged, whatever was in flight when it died.
describe.each(STORES)('creates acknowledged before a kill [%s]', (kind) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function storeEnv(): Promise<Record<string, string>> {
    if (kind === 'pglite') {
      const dataDir = tempDir('ugs-ack-');
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      return { DATA_DIR: dataDir };
    }
    const database = await createPostgresDatabase();
    cleanups.push(() => database.drop());
    return { DATABASE_URL: database.url };
  }

  async function start(env: Record<string, string>) {
    const port = await freePort();
    const service = ServiceProcess.start(['serve'], {
      ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    });
    cleanups.push(() => service.stop('SIGKILL').then(() => undefined));
    const base = `http://127.0.0.1:${port}`;
    await service.waitUntilReady(`${base}/readyz`, 60_000);
    return { service, base };
  }

  const post = (base: string, token: string, path: string, body: unknown) => fetch(`${base}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });

  it('finds every acknowledged interaction after SIGKILL and restart', async () => {
    const env = await storeEnv();
    const first = await start(env);
    const { token } = await (await post(first.base, '', '/api/v1/auth/login', ADMIN)).json() as { token: string };

    const acknowledged: string[] = [];
    let killed = false;
    const client = async () => {
      while (!killed) {
        try {
          const response = await post(first.base, token, '/api/v1/interactions', interactionBody());
          if (response.status === 201) acknowledged.push(((await response.json()) as { id: string }).id);
        } catch {
          return; // the connection died with the process
        }
        if (acknowledged.length >= KILL_AFTER && !killed) {
          killed = true;
          first.service.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    await first.service.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);

    const second = await start(env);
    const { token: again } = await (await post(second.base, '', '/api/v1/auth/login', ADMIN)).json() as { token: string };
    const found = new Set<string>();
    for (let page = 1; ; page += 1) {
      const response = await fetch(`${second.base}/api/v1/interactions?limit=500&page=${page}`,
        { headers: { authorization: `Bearer ${again}` } });
      const { data } = await response.json() as { data: Array<{ id: string }> };
      for (const row of data) found.add(row.id);
      if (data.length < 500) break;
    }
    expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
    await second.service.stop();
  });
});
