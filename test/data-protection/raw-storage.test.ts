import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceProcess, freePort, tempDir } from '../helpers/process.js';
import { STORES, createPostgresDatabase } from '../helpers/stores.js';
import { randomHash } from '../helpers/interactions-fixtures.js';
import { findIn, rawStorage } from '../helpers/raw-storage.js';

// What a backup, a replica or a copied data folder gives away: the raw storage of a service that
// was given card numbers, IBANs, national ids, emails, API keys and webhook secrets holds none of
// them, in any common encoding.

const DETECTED = {
  CREDIT_CARD: '4111 1111 1111 1111',
  IBAN: 'FR76 3000 6000 0112 3456 7890 189',
  NIR: '1 84 12 76 451 089 46',
  EMAIL: 'jane.doe@secret-example.org',
  API_KEY: `sk-live-${randomBytes(12).toString('hex')}`,
};
const AUTH_TOKEN = `receiver-bearer-${randomBytes(8).toString('hex')}`;
const HEADER_VALUE = `header-secret-${randomBytes(8).toString('hex')}`;
const ADMIN = { email: 'root@acme.test', password: 'Bootstrap-Pass-1' };

describe.each(STORES)('raw storage holds no detected value or secret [%s]', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('a pg_dump or the embedded folder reveals none, while the API returns them as sent', { timeout: 180_000 }, async () => {
    const dataDir = tempDir();
    let databaseUrl: string | undefined;
    if (kind === 'postgres') {
      const database = await createPostgresDatabase();
      cleanups.push(database.drop);
      databaseUrl = database.url;
    }
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(['serve'], {
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') } : { DATA_DIR: dataDir }),
      PORT: String(port), HOST: '127.0.0.1', SERVE_WORKERS: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, BOOTSTRAP_TENANT_NAME: 'Raw Storage Corp',
    });
    cleanups.push(async () => void await service.stop());
    await service.waitUntilReady(`${base}/readyz`, 60_000);
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}${path}`, {
        method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() as any };
    };
    let token: string | undefined;
    token = (await call('POST', '/api/v1/auth/login', ADMIN)).body.token;

    const webhook = await call('POST', '/api/v1/webhooks', {
      url: 'https://127.0.0.1:9/intake', events: ['interaction.created', 'interaction.high_risk'],
      headers: { 'X-Intake-Secret': HEADER_VALUE }, auth_token: AUTH_TOKEN,
    });
    expect(webhook.status).toBe(201);
    const rotated = await call('POST', `/api/v1/webhooks/${webhook.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const secrets = [webhook.body.signing_secret as string, rotated.body.signing_secret as string, AUTH_TOKEN, HEADER_VALUE];

    const classifications = Object.entries(DETECTED).map(([type, value]) => ({ type, value, score: 0.9, start: 0, end: value.length }));
    const single = await call('POST', '/api/v1/interactions',
      { platform_id: 'raw-storage-check', content_hash: randomHash(), classifications, risk_score: 0.95 }, { 'idempotency-key': 'raw-1' });
    expect(single.status).toBe(201);
    expect(single.body.classifications.map((c: { value: string }) => c.value)).toEqual(Object.values(DETECTED));
    const batch = await call('POST', '/api/v1/interactions/batch', [1, 2, 3].map(() =>
      ({ platform_id: 'raw-storage-check', content_hash: randomHash(), classifications, risk_score: 0.95 })));
    expect(batch.body).toEqual({ received: 3, stored: 3 });
    const listed = await call('GET', '/api/v1/interactions?platform_id=raw-storage-check');
    expect(listed.body.total).toBe(4);
    for (const interaction of listed.body.data) {
      expect(interaction.classifications.map((c: { value: string }) => c.value)).toEqual(Object.values(DETECTED));
    }
    const stored = await call('GET', `/api/v1/webhooks/${webhook.body.id}`);
    expect(stored.body.headers).toEqual({ 'X-Intake-Secret': HEADER_VALUE });
    expect(await service.stop()).toBe(0);

    const raw = rawStorage(databaseUrl ? { databaseUrl } : { dataDir });
    // The storage was read (it holds what is not secret), and sealed texts are where values were.
    expect(raw).toContain('raw-storage-check');
    expect(raw).toContain('Raw Storage Corp');
    expect(raw).toMatch(/v1\.[\w-]{16}\.[\w-]{20,}/);
    expect(findIn(raw, [...Object.values(DETECTED), ...secrets])).toEqual([]);
  });
});
