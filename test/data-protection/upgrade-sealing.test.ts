import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/platform/store/store.js';
import { buildRelease, releaseBefore } from '../helpers/earlier-release.js';
import { ServiceProcess, freePort, tempDir } from '../helpers/process.js';
import { STORES, createPostgresDatabase, ownerDb } from '../helpers/stores.js';
import { randomHash } from '../helpers/interactions-fixtures.js';
import { findIn, rawStorage } from '../helpers/raw-storage.js';

// An upgrade from the release before values were sealed: what it stored in clear (classification
// values, webhook secrets, token and header values, queued envelopes, idempotent responses) is
// sealed by the background pass of the new release, and reads return the same values as before.

const ADMIN = { email: 'root@acme.test', password: 'Bootstrap-Pass-1' };
const IBAN = 'FR76 3000 6000 0112 3456 7890 189';
const CARD = '4111 1111 1111 1111';
const AUTH_TOKEN = `legacy-bearer-${randomBytes(6).toString('hex')}`;
const HEADER_VALUE = `legacy-header-${randomBytes(6).toString('hex')}`;

async function startService(env: Record<string, string>, cli?: string) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = ServiceProcess.start(['serve'], {
    ...env, PORT: String(port), HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  }, { cli });
  await proc.waitUntilReady(`${base}/readyz`, 60_000);
  let token = '';
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, {
      method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), authorization: `Bearer ${token}` },
    });
    return { status: response.status, body: await response.json() as any };
  };
  token = (await call('POST', '/api/v1/auth/login', ADMIN)).body.token;
  return { proc, call };
}

// One build of the earlier release for both stores.
let release: ReturnType<typeof buildRelease>;
beforeAll(() => {
  release = buildRelease(releaseBefore('src/platform/store/migrations/0013_detected_values.ts'));
}, 180_000);
afterAll(() => release?.remove());

describe.each(STORES)('upgrade from the release before sealed values [%s]', (kind) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('seals what the earlier release stored, and reads return the same values', { timeout: 240_000 }, async () => {
    let store: Record<string, string>;
    if (kind === 'postgres') {
      const database = await createPostgresDatabase();
      cleanups.push(database.drop);
      store = { DATABASE_URL: database.url };
    } else {
      store = { DATA_DIR: tempDir() };
    }

    // The earlier release, filled through its API; its workers off, so the events stay queued.
    const earlier = await startService({ ...store, SERVE_WORKERS: 'false' }, release.cli);
    cleanups.push(() => earlier.proc.stop());
    const webhook = await earlier.call('POST', '/api/v1/webhooks', {
      url: 'https://127.0.0.1:9/intake', events: ['interaction.created'], headers: { 'X-Intake': HEADER_VALUE }, auth_token: AUTH_TOKEN,
    });
    expect(webhook.status).toBe(201);
    const classifications = [{ type: 'IBAN', value: IBAN, score: 1, start: 0, end: 33 }, { type: 'CREDIT_CARD', value: CARD, score: 1, start: 40, end: 59 }];
    const keyed = { platform_id: 'openai', content_hash: randomHash(), classifications };
    expect((await earlier.call('POST', '/api/v1/interactions', keyed, { 'idempotency-key': 'before-upgrade' })).status).toBe(201);
    for (const half of [0, 1]) {
      const batch = await earlier.call('POST', '/api/v1/interactions/batch', Array.from({ length: 300 }, (_, i) =>
        ({ platform_id: 'openai', content_hash: randomHash(), user_id: (half + i) % 2 ? null : crypto.randomUUID(), classifications })));
      expect(batch.body.stored).toBe(300);
    }
    const before = (await earlier.call('GET', '/api/v1/interactions?limit=100')).body;
    expect(await earlier.proc.stop()).toBe(0);

    // This release on the same store, its workers on: the sealing pass runs at start.
    const upgraded = await startService(store);
    cleanups.push(() => upgraded.proc.stop());
    await expect.poll(() => upgraded.proc.stdout.includes('values of an earlier release sealed'), { timeout: 60_000 }).toBe(true);
    const after = (await upgraded.call('GET', '/api/v1/interactions?limit=100')).body;
    expect(after.total).toBe(before.total);
    expect(after.data.map((i: any) => ({ ...i, classifications: i.classifications.map(({ fingerprint: _, ...c }: any) => c) })))
      .toEqual(before.data);
    expect(after.data[0].classifications[0].fingerprint).toMatch(/^fp_/);
    const seen = await upgraded.call('POST', '/api/v1/signals/lookup', { type: 'IBAN', value: IBAN });
    expect(seen.body).toMatchObject({ interactions: 601, users: 300 });
    expect((await upgraded.call('GET', `/api/v1/webhooks/${webhook.body.id}`)).body.headers).toEqual({ 'X-Intake': HEADER_VALUE });
    const replay = await upgraded.call('POST', '/api/v1/interactions', keyed, { 'idempotency-key': 'before-upgrade' });
    expect(replay.body.classifications.map((c: any) => c.value)).toEqual([IBAN, CARD]);
    expect(await upgraded.proc.stop()).toBe(0);

    // No row holds a value in clear any more.
    const opened = await openStore(kind === 'postgres' ? { databaseUrl: store.DATABASE_URL } : { dataDir: store.DATA_DIR });
    try {
      const rows = await ownerDb(opened).selectFrom('interactions').select('classifications').execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((row) => row.classifications.some((c) => c.value !== undefined || c.sealed_value === undefined))).toEqual([]);
      expect(await ownerDb(opened).selectFrom('webhooks').select('secrets_sealed').execute()).toEqual([{ secrets_sealed: true }]);
      const messages = await ownerDb(opened).selectFrom('webhook_messages').select('payload').execute();
      expect(messages.length).toBeGreaterThan(0);
      expect(messages.filter((m) => !m.payload.startsWith('v1.'))).toEqual([]);
    } finally {
      await opened.close();
    }
    // A dump of the database shows none of them (the embedded store's files may still hold the
    // earlier release's row versions until they are overwritten: docs/data-protection.md).
    if (kind === 'postgres') {
      expect(findIn(rawStorage({ databaseUrl: store.DATABASE_URL! }), [IBAN, CARD, AUTH_TOKEN, HEADER_VALUE, webhook.body.signing_secret])).toEqual([]);
    }
  });
});
