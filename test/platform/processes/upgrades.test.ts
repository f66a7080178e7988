import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SERVICE_VERSION } from '../../../src/kernel/version.js';
import { installRelease, releasesToTest, type InstalledRelease } from '../../helpers/earlier-release.js';
import { createTestCertificates, HttpsReceiver } from '../../helpers/https-receiver.js';
import { tempDir } from '../../helpers/process.js';
import { fillThroughApi, PATIENT_RETRIES, PATIENT_TIMEOUT_MS, RELEASE_ADMIN, releaseAdminEnv, totalsOf } from '../../helpers/release-data.js';
import { ServiceApi } from '../../helpers/service-api.js';
import { STORES, createPostgresDatabase } from '../../helpers/stores.js';
import { TcpProxy } from '../../helpers/tcp-proxy.js';
import { bodyOf, deliveryEnv } from '../../helpers/webhooks-fixtures.js';

// An upgrade from each earlier release (by default the previous one and the oldest;
// UPGRADE_RELEASES=all for every one): the release as it shipped, with its own dependencies,
// fills a new store through its API while its webhook's receiver refuses connections; then this
// build starts on the same store, and every total, every row and every queued delivery is there.

const cases = releasesToTest().flatMap((version) => STORES.map((kind) => ({ version, kind })));
/** A first start of an old release on a new embedded store ran initdb in its own process: slow under load. */
const READY_WITHIN_MS = 240_000;

describe('upgrades from earlier releases', () => {
  const certificates = createTestCertificates();
  const installs = new Map<string, Promise<InstalledRelease>>();
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    // Side by side: each one's install is mostly waiting on npm and the disk.
    for (const { version } of cases) if (!installs.has(version)) installs.set(version, installRelease(version));
    await Promise.all(installs.values());
  }, 900_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  // Side by side too: most of each one's time is spent waiting on its processes.
  it.concurrent.for(cases.map(({ version, kind }) => [version, kind] as const))('from v%s [%s]: every total, row and queued delivery is there after the upgrade', { timeout: 900_000 }, async ([version, kind], { expect }) => {
    const release = await installs.get(version)!;
    let store: Record<string, string>;
    let rowCounts = async (): Promise<Record<string, number>> => ({});
    if (kind === 'postgres') {
      const database = await createPostgresDatabase();
      cleanups.push(database.drop);
      store = { DATABASE_URL: database.url };
      rowCounts = () => countRows(database.url);
    } else {
      const folder = tempDir(`ugs-upgrade-${version}-`);
      cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
      store = { DATA_DIR: folder };
    }
    // The receiver's address refuses every attempt until the gate opens: the deliveries stay
    // queued. The gate holds the port all along, so that no other process can take it meanwhile.
    const receiver = await HttpsReceiver.start(certificates);
    cleanups.push(() => receiver.close());
    const gate = new TcpProxy('127.0.0.1', receiver.port);
    gate.refusing = true;
    await gate.start();
    cleanups.push(() => gate.stop());
    const receiverPort = gate.port;
    const env = { ...store, ...releaseAdminEnv, ...deliveryEnv(certificates, { WEBHOOK_RETRY_DELAYS_MS: PATIENT_RETRIES, WEBHOOK_TIMEOUT_MS: PATIENT_TIMEOUT_MS }) };

    const earlier = await ServiceApi.start(env, { cli: release.cli, admin: RELEASE_ADMIN, readyWithinMs: READY_WITHIN_MS });
    cleanups.push(() => earlier.stop('SIGKILL'));
    expect((await earlier.expect(200, 'GET', '/api/v1/version')).version).toBe(`v${version}`);
    const filled = await fillThroughApi(earlier, `https://127.0.0.1:${receiverPort}/upgrade-${version}-${kind}`);
    await expect.poll(() => earlier.total(`/api/v1/webhooks/${filled.webhookId}/deliveries`), { timeout: 30_000 }).toBeGreaterThan(0);
    const before = await totalsOf(earlier);
    const listedBefore = await listedInteractions(earlier);
    expect(await earlier.stop()).toBe(0);
    const rowsBefore = await rowCounts();

    const current = await ServiceApi.start(env, { admin: RELEASE_ADMIN, readyWithinMs: READY_WITHIN_MS });
    cleanups.push(() => current.stop('SIGKILL'));
    expect((await current.expect(200, 'GET', '/api/v1/version')).version).toBe(SERVICE_VERSION);
    expect(await totalsOf(current)).toEqual(before);
    expect(await listedInteractions(current)).toEqual(listedBefore);
    expect(await rowCounts()).toEqual(rowsBefore);

    gate.refusing = false;
    const delivered = (eventType: string) => new Set(receiver.requests.map(bodyOf)
      .filter((body) => body.event_type === eventType).map((body) => (body.data as { id: string }).id));
    await withWebhookLog(current, expect.poll(() => filled.interactionIds.filter((id) => !delivered('interaction.created').has(id)), { timeout: 60_000 }).toEqual([]));
    await withWebhookLog(current, expect.poll(() => filled.alertIds.filter((id) => !delivered('alert.created').has(id)), { timeout: 30_000 }).toEqual([]));

    // And the upgraded store takes new work as any other.
    const created = await current.expect(201, 'POST', '/api/v1/interactions', { platform_id: 'openai', content_hash: 'a'.repeat(64) });
    await expect.poll(() => delivered('interaction.created').has(created.id), { timeout: 30_000 }).toBe(true);
    expect(await current.total('/api/v1/interactions')).toBe(before.interactions! + 1);
    expect(await current.stop()).toBe(0);
  });
});

/** A wait for deliveries that fails says what the service logged about its webhook work meanwhile. */
async function withWebhookLog(api: ServiceApi, wait: Promise<void>): Promise<void> {
  try {
    await wait;
  } catch (error) {
    const lines = api.proc.output.split('\n').filter((line) => /webhook/i.test(line)).slice(-50);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nthe service's last webhook log lines:\n${lines.join('\n')}`);
  }
}

/** Every interaction (a page of 500 holds them all) with what every release answers of it, by id. */
async function listedInteractions(api: ServiceApi) {
  const rows = (await api.expect(200, 'GET', '/api/v1/interactions?limit=500')).data as Array<Record<string, unknown>>;
  return rows.map(({ id, timestamp, platform_id, content_hash, interaction_type, risk_score, direction, source, user_id, policy_decisions }) =>
    ({ id, timestamp, platform_id, content_hash, interaction_type, risk_score, direction, source, user_id, policy_decisions }))
    .sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

/** The rows of the tables every release has, counted in the database itself. */
async function countRows(databaseUrl: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = ['tenants', 'users', 'api_keys', 'policies', 'interactions', 'alerts', 'webhooks', 'invitations'];
    const counts = await Promise.all(tables.map(async (table) => Number((await client.query(`select count(*) as n from ${table}`)).rows[0].n)));
    return Object.fromEntries(tables.map((table, i) => [table, counts[i]!]));
  } finally {
    await client.end();
  }
}
