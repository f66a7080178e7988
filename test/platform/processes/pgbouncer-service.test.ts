import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../../src/platform/store/migrations/index.js';
import { TEST_PASSWORD } from '../../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../../helpers/https-receiver.js';
import { interactionBody } from '../../helpers/interactions-fixtures.js';
import { PgBouncer, pgbouncerFound } from '../../helpers/pgbouncer.js';
import { ServiceProcess } from '../../helpers/process.js';
import { createPostgresDatabase } from '../../helpers/stores.js';
import { bodyOf, deliveryEnv } from '../../helpers/webhooks-fixtures.js';

const ADMIN_EMAIL = 'admin@pooled.test';
const SECOND_EMAIL = 'admin@second.test';
/** Server connections PgBouncer opens to the database: fewer than the service's pool of 10. */
const SERVER_CONNECTIONS = 2;
const WRITERS = 8;
const CREATES_PER_WRITER = 40;

// The service as real processes whose DATABASE_URL goes through PgBouncer in transaction mode,
// from an empty database: migrations, bootstrap, ingest, deliveries, compaction and retention.
describe.runIf(process.env.TEST_DATABASE_URL && pgbouncerFound)('the service through a transaction-pooling PgBouncer [postgres]', () => {
  const certificates = createTestCertificates();
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let databaseName = '';
  let bouncer: PgBouncer;
  let receiver: HttpsReceiver;
  let direct: pg.Pool;
  const services: ServiceProcess[] = [];
  let base = '';
  let urls: string[] = [];
  const tenants: Array<{ name: string; token: string; apiKey: string; acknowledged: string[] }> = [];

  const env = (withListenUrl: boolean) => ({
    ...deliveryEnv(certificates),
    DATABASE_URL: bouncer.urlFor(database.url),
    ...(withListenUrl ? { DATABASE_LISTEN_URL: database.url } : {}),
    PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: TEST_PASSWORD,
    WEBHOOK_LEASE_MS: '2000',
  });
  const start = async (withListenUrl: boolean) => {
    const service = ServiceProcess.start(['serve'], env(withListenUrl));
    services.push(service);
    const [, url = ''] = await service.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
    return { service, url };
  };
  const call = async (method: string, path: string, auth: string | undefined, body?: unknown, at = base) => {
    const response = await fetch(`${at}${path}`, {
      method,
      headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json().catch(() => null)) as Record<string, any> | null };
  };
  const count = async (query: string, values: unknown[] = []) => Number((await direct.query(query, values)).rows[0].n);
  const deliveredIds = (tenant: string) => new Set(receiver.at(`/pooled-${tenant}`).map((r) => bodyOf(r))
    .filter((body) => body.event_type === 'interaction.created').map((body) => (body.data as { id: string }).id));
  const stopAll = async () => {
    await Promise.all(services.map((service) => service.stop()));
    services.length = 0;
  };

  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    database = await createPostgresDatabase();
    databaseName = new URL(database.url).pathname.slice(1);
    const target = new URL(database.url);
    bouncer = await PgBouncer.start({ host: target.hostname, port: Number(target.port || 5432) }, { poolSize: SERVER_CONNECTIONS });
    direct = new pg.Pool({ connectionString: database.url, max: 2 });
    direct.on('error', () => {});
  });

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop('SIGKILL')));
    await direct?.end();
    await bouncer?.stop();
    await database?.drop();
    await receiver?.close();
  });

  it('migrates and bootstraps an empty database once when two processes start together through it', async () => {
    urls = (await Promise.all([start(true), start(true)])).map((started) => started.url);
    base = urls[0]!;
    expect(await count('select count(*) as n from schema_migrations')).toBe(Object.keys(migrations).length);
    expect(await count('select count(*) as n from tenants')).toBe(1);
    expect(await count('select count(*) as n from users')).toBe(1);
    // Both processes' pools (10 connections each) went through the few server connections.
    const [pool] = await bouncer.show('POOLS', databaseName);
    expect(Number(pool!.sv_active) + Number(pool!.sv_idle) + Number(pool!.sv_used)).toBeLessThanOrEqual(SERVER_CONNECTIONS);
  });

  it('takes two tenants\' concurrent creates in group commits and delivers every event to an HTTPS receiver, from both processes', async () => {
    const second = await ServiceProcess.run(['tenant', 'create', '--name', 'Second', '--admin-email', SECOND_EMAIL,
      '--admin-password', TEST_PASSWORD], env(false));
    expect(second.code, second.stderr).toBe(0);
    for (const [name, email] of [['a', ADMIN_EMAIL], ['b', SECOND_EMAIL]] as const) {
      const login = await call('POST', '/api/v1/auth/login', undefined, { email, password: TEST_PASSWORD });
      expect(login.status).toBe(200);
      const token = login.json!.token as string;
      const key = await call('POST', '/api/v1/api-keys', token, { name: 'ingest', scopes: ['interactions:write'] });
      expect(key.status).toBe(201);
      expect((await call('POST', '/api/v1/webhooks', token, { url: receiver.url(`/pooled-${name}`), events: ['interaction.created'] })).status).toBe(201);
      tenants.push({ name, token, apiKey: key.json!.key as string, acknowledged: [] });
    }

    const statuses: number[] = [];
    await Promise.all(Array.from({ length: WRITERS }, async (_, writer) => {
      const tenant = tenants[Math.floor(writer / 2) % 2]!;
      for (let i = 0; i < CREATES_PER_WRITER; i += 1) {
        const created = await call('POST', '/api/v1/interactions', tenant.apiKey, interactionBody(), urls[writer % 2]);
        statuses.push(created.status);
        if (created.status === 201) tenant.acknowledged.push(created.json!.id as string);
      }
    }));
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    expect(await count('select count(*) as n from interactions')).toBe(WRITERS * CREATES_PER_WRITER);
    for (const tenant of tenants) {
      await expect.poll(() => tenant.acknowledged.every((id) => deliveredIds(tenant.name).has(id)), { timeout: 30_000 }).toBe(true);
      expect([...deliveredIds(tenant.name)].filter((id) => !tenant.acknowledged.includes(id))).toEqual([]);
    }
    await expect.poll(() => count('select count(*) as n from webhook_jobs'), { timeout: 20_000 }).toBe(0);
  });

  it('compacts the counts: each tenant\'s totals and stats match its rows, and its list holds only them', async () => {
    await expect.poll(() => count('select count(*) as n from interaction_count_deltas'), { timeout: 20_000 }).toBe(0);
    for (const tenant of tenants) {
      const listed = await call('GET', '/api/v1/interactions?limit=500', tenant.token);
      expect(listed.json!.total).toBe(tenant.acknowledged.length);
      expect((listed.json!.data as Array<{ id: string }>).map((row) => row.id).sort()).toEqual([...tenant.acknowledged].sort());
      const stats = await call('GET', '/api/v1/stats', tenant.token);
      expect(stats.json!.interactions.total).toBe(tenant.acknowledged.length);
    }
  });

  it('applies a retention under its lease, and gives the lease back', async () => {
    const [a, b] = tenants as [typeof tenants[0], typeof tenants[0]];
    const old = a.acknowledged.slice(0, 50);
    await direct.query(`update interactions set timestamp = date_trunc('milliseconds', now() - interval '40 days') where id = any($1::uuid[])`, [old]);
    expect((await call('PUT', '/api/v1/tenant', a.token, { retention_days: 30 })).status).toBe(200);
    // Retention runs at a process's start.
    await stopAll();
    base = (await start(false)).url;
    const left = a.acknowledged.length + b.acknowledged.length - old.length;
    await expect.poll(() => count('select count(*) as n from interactions'), { timeout: 20_000 }).toBe(left);
    await expect.poll(() => count(`select count(*) as n from audit_log where action = 'retention.applied'`)).toBe(1);
    await expect.poll(() => count(`select count(*) as n from service_leases where name = 'retention'`)).toBe(0);
    await expect.poll(async () => (await call('GET', '/api/v1/interactions?limit=1', a.token)).json!.total, { timeout: 10_000 })
      .toBe(a.acknowledged.length - old.length);
  });

  it('without DATABASE_LISTEN_URL, the workers find new deliveries by polling', async () => {
    const created = await call('POST', '/api/v1/interactions', tenants[1]!.apiKey, interactionBody());
    expect(created.status).toBe(201);
    await expect.poll(() => deliveredIds('b').has(created.json!.id as string), { timeout: 10_000 }).toBe(true);
    const [stats] = await bouncer.show('STATS', databaseName);
    expect(Number(stats!.total_xact_count)).toBeGreaterThan(0);
  });
});
