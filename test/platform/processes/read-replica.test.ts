import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../../helpers/harness.js';
import { interactionBody } from '../../helpers/interactions-fixtures.js';
import { OwnPostgres } from '../../helpers/own-postgres.js';
import { ServiceProcess } from '../../helpers/process.js';

const ADMIN_EMAIL = 'admin@replica.test';
const DATABASE = 'ugs_replica';

// A primary and an asynchronous streaming standby of the test's own; DATABASE_READ_URL names the standby.
describe.runIf(process.env.TEST_DATABASE_URL)('lists, stats, exports and search from a read replica [postgres]', () => {
  let primary: OwnPostgres | undefined;
  let standby: OwnPostgres | undefined;
  let service: ServiceProcess;
  let base = '';
  let token = '';
  const created: Array<{ id: string; content_hash: string }> = [];

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      // an export: NDJSON
    }
    return { status: response.status, json, text };
  };
  const create = async () => {
    const answer = await call('POST', '/api/v1/interactions', interactionBody());
    expect(answer.status).toBe(201);
    created.push({ id: answer.json.id, content_hash: answer.json.content_hash });
    return created.at(-1)!;
  };
  const metric = async (name: string) => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.split(' ')[1]);
  };
  const servedBy = (where: 'replica' | 'primary') => metric(`ugs_store_reads_total{served_by="${where}"}`);
  /** What the standby itself holds, read there directly. */
  const onStandby = async (id: string) => (await standby!.query<{ n: number }>(
    `select count(*)::int as n from interactions where id = '${id}'`, DATABASE))[0]!.n;
  /** Reads of the interactions table the standby's own statistics have seen. */
  const standbyScans = async () => (await standby!.query<{ n: string }>(
    `select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as n from pg_stat_user_tables where relname = 'interactions'`, DATABASE))
    .reduce((sum, row) => sum + Number(row.n), 0);
  const listedIds = async () => {
    const listed = await call('GET', '/api/v1/interactions?limit=500');
    expect(listed.status).toBe(200);
    return { ids: (listed.json.data as Array<{ id: string }>).map((row) => row.id), total: listed.json.total as number };
  };

  beforeAll(async () => {
    primary = await OwnPostgres.start();
    await primary.createDatabase(DATABASE);
    standby = await primary.createStandby();
    service = ServiceProcess.start(['serve'], {
      DATABASE_URL: primary.url(DATABASE), DATABASE_READ_URL: standby.url(DATABASE),
      PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: TEST_PASSWORD,
    });
    [, base = ''] = await service.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
    const login = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN_EMAIL, password: TEST_PASSWORD }),
    });
    token = ((await login.json()) as { token: string }).token;
  });

  afterAll(async () => {
    await service?.stop('SIGKILL');
    await primary?.destroy();
    await standby?.destroy();
  });

  it('serves the list, stats, search and exports from the replica, with every commit made before them', async () => {
    for (let i = 0; i < 5; i += 1) await create();
    const scansBefore = await standbyScans();

    /** The four reads, each checked; how many of them the replica served. */
    const readAll = async () => {
      const replicaBefore = await servedBy('replica') ?? 0;
      const { ids, total } = await listedIds();
      expect(ids.sort()).toEqual(created.map((c) => c.id).sort());
      expect(total).toBe(created.length);
      expect((await call('GET', '/api/v1/stats')).json.interactions.total).toBe(created.length);
      const search = await call('GET', `/api/v1/interactions/search?content_hash=${created[0]!.content_hash}`);
      expect(search.json.map((row: { id: string }) => row.id)).toEqual([created[0]!.id]);
      const exported = await call('GET', '/api/v1/interactions/export?format=ndjson');
      expect(exported.status).toBe(200);
      expect(exported.text.trim().split('\n').map((line) => JSON.parse(line).id).sort()).toEqual(created.map((c) => c.id).sort());
      return (await servedBy('replica'))! - replicaBefore;
    };
    // A read the replica has not caught up with within its wait goes to the primary (the service's
    // own workers write too): on a loaded machine a round may lose one read that way, not all rounds.
    await expect.poll(readAll, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(4);
    // The standby's own statistics saw those reads (a backend reports them once idle for a while).
    await expect.poll(async () => (await standbyScans()) - scansBefore, { timeout: 30_000, interval: 500 }).toBeGreaterThan(0);
  });

  it('reads a caller\'s own write from the primary while the replica lags, and shows the lag in /metrics', async () => {
    await standby!.pauseReplay(true);
    try {
      const primaryBefore = await servedBy('primary') ?? 0;
      const fresh = await create();
      // The standby stopped replaying: it does not hold the new interaction.
      expect(await onStandby(fresh.id)).toBe(0);
      const { ids, total } = await listedIds();
      expect(ids).toContain(fresh.id);
      expect(total).toBe(created.length);
      expect((await servedBy('primary'))! - primaryBefore).toBe(1);
      // A scrape within a second of the last one may show that one's read of the lag.
      await expect.poll(() => metric('ugs_store_replica_lag_bytes')).toBeGreaterThan(0);
      expect(await metric('ugs_store_replica_up')).toBe(1);
    } finally {
      await standby!.pauseReplay(false);
    }
    // Caught up again: the replica serves, and the lag is gone.
    const replicaBefore = await servedBy('replica') ?? 0;
    await expect.poll(async () => (await listedIds()).ids.length).toBe(created.length);
    await expect.poll(async () => (await servedBy('replica'))! - replicaBefore, { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => metric('ugs_store_replica_lag_bytes'), { timeout: 10_000 }).toBe(0);
  });

  it('reads from the primary while the replica is down', async () => {
    await standby!.stop('fast');
    const primaryBefore = await servedBy('primary') ?? 0;
    const fresh = await create();
    const { ids } = await listedIds();
    expect(ids).toContain(fresh.id);
    expect((await call('GET', '/api/v1/stats')).json.interactions.total).toBe(created.length);
    expect((await servedBy('primary'))! - primaryBefore).toBeGreaterThanOrEqual(2);
    await expect.poll(() => metric('ugs_store_replica_up')).toBe(0);
  });
});
