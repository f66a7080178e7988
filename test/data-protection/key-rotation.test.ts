import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { masterKeyId } from '../../src/platform/crypto/master-key.js';
import { ServiceProcess, freePort, tempDir } from '../helpers/process.js';
import { createPostgresDatabase } from '../helpers/stores.js';
import { randomHash } from '../helpers/interactions-fixtures.js';

// A rotation of the master key keeps every value readable, and once the old key is retired it
// opens nothing: tested with the real command and real service processes, the old key removed.

const ADMIN = { email: 'root@acme.test', password: 'Bootstrap-Pass-1' };
const CARD = '4111 1111 1111 1111';
const HEADER_VALUE = 'intake-header-secret';

const newKey = () => randomBytes(32).toString('base64');
const idOf = (key: string) => masterKeyId(Buffer.from(key, 'base64'));

/** A service process on `env`, with a logged-in admin and a call helper. */
async function startService(env: Record<string, string>) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = ServiceProcess.start(['serve'], {
    ...env, PORT: String(port), HOST: '127.0.0.1', SERVE_WORKERS: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  });
  await proc.waitUntilReady(`${base}/readyz`, 60_000);
  let token = '';
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), authorization: `Bearer ${token}` },
    });
    return { status: response.status, body: await response.json() as any };
  };
  token = (await call('POST', '/api/v1/auth/login', ADMIN)).body.token;
  return { proc, call };
}

type Service = Awaited<ReturnType<typeof startService>>;

async function seed(service: Service): Promise<string> {
  const webhook = await service.call('POST', '/api/v1/webhooks', {
    url: 'https://127.0.0.1:9/intake', events: ['interaction.created'], headers: { 'X-Intake': HEADER_VALUE },
  });
  expect(webhook.status).toBe(201);
  const created = await service.call('POST', '/api/v1/interactions', {
    platform_id: 'openai', content_hash: randomHash(), classifications: [{ type: 'CREDIT_CARD', value: CARD, score: 1, start: 0, end: 19 }],
  });
  expect(created.status).toBe(201);
  return webhook.body.id;
}

/** Reads back what `seed` stored: the card as sent and the webhook's header value. */
async function expectReadable(service: Service, webhookId: string): Promise<void> {
  const listed = await service.call('GET', '/api/v1/interactions');
  expect(listed.status).toBe(200);
  expect(listed.body.data[0].classifications[0].value).toBe(CARD);
  expect((await service.call('GET', `/api/v1/webhooks/${webhookId}`)).body.headers).toEqual({ 'X-Intake': HEADER_VALUE });
}

async function expectUnreadable(service: Service): Promise<void> {
  const listed = await service.call('GET', '/api/v1/interactions');
  expect(listed.status).toBe(503);
  expect(JSON.stringify(listed.body)).not.toContain('4111');
}

describe('rotation of the master key', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it.runIf(process.env.TEST_DATABASE_URL)('on PostgreSQL: rotate while the service runs, restart on the new key, retire the old one', { timeout: 240_000 }, async () => {
    const database = await createPostgresDatabase();
    cleanups.push(database.drop);
    const [oldKey, nextKey] = [newKey(), newKey()];
    const store = { DATABASE_URL: database.url };
    const running = await startService({ ...store, DATA_ENCRYPTION_KEY: oldKey });
    cleanups.push(() => running.proc.stop());
    const webhookId = await seed(running);

    const missing = await ServiceProcess.run(['keys', 'rotate'], { ...store, DATA_ENCRYPTION_KEY: oldKey });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('error: --new-key is required when the key comes from DATA_ENCRYPTION_KEY');
    const malformed = await ServiceProcess.run(['keys', 'rotate', '--new-key', 'c2hvcnQ='], { ...store, DATA_ENCRYPTION_KEY: oldKey });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('--new-key is not a valid data encryption key');
    const early = await ServiceProcess.run(['keys', 'retire'], { ...store, DATA_ENCRYPTION_KEY: nextKey });
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('not wrapped under the current key');

    const rotated = await ServiceProcess.run(['keys', 'rotate', '--new-key', nextKey], { ...store, DATA_ENCRYPTION_KEY: oldKey });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain(`1 tenant(s) wrapped under key ${idOf(nextKey)}`);
    await expectReadable(running, webhookId);
    await running.proc.stop();

    // Mid-rotation, a process still on the old key opens the keys too (nothing cached).
    const stillOld = await startService({ ...store, DATA_ENCRYPTION_KEY: oldKey });
    await expectReadable(stillOld, webhookId);
    await stillOld.proc.stop();

    const retired = await ServiceProcess.run(['keys', 'retire'], { ...store, DATA_ENCRYPTION_KEY: nextKey });
    expect(retired.code, retired.stderr).toBe(0);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query('select master_key_id, previous_master_key_id, previous_data_key from tenant_keys');
    await client.end();
    expect(rows).toEqual([{ master_key_id: idOf(nextKey), previous_master_key_id: null, previous_data_key: null }]);

    const renewed = await startService({ ...store, DATA_ENCRYPTION_KEY: nextKey });
    await expectReadable(renewed, webhookId);
    await renewed.proc.stop();
    const removed = await startService({ ...store, DATA_ENCRYPTION_KEY: oldKey });
    await expectUnreadable(removed);
    await removed.proc.stop();
  });

  it('on the embedded store: the key file is made at first start (0600), and `keys rotate` replaces it', { timeout: 240_000 }, async () => {
    const dataDir = tempDir();
    const keyFile = join(dataDir, 'data-encryption.key');
    const first = await startService({ DATA_DIR: dataDir });
    const webhookId = await seed(first);
    await first.proc.stop();
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const oldKey = readFileSync(keyFile, 'utf8').trim();

    const rotated = await ServiceProcess.run(['keys', 'rotate'], { DATA_DIR: dataDir });
    expect(rotated.code, rotated.stderr).toBe(0);
    const nextKey = readFileSync(keyFile, 'utf8').trim();
    expect(nextKey).not.toBe(oldKey);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(rotated.stdout).toContain(`wrapped under key ${idOf(nextKey)}`);

    const renewed = await startService({ DATA_DIR: dataDir });
    await expectReadable(renewed, webhookId);
    await renewed.proc.stop();
    const removed = await startService({ DATA_DIR: dataDir, DATA_ENCRYPTION_KEY: oldKey });
    await expectUnreadable(removed);
    await removed.proc.stop();
  });
});
