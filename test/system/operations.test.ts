import { validate } from '@scalar/openapi-parser';
import { testKeyring } from '../helpers/keyring.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { migrate } from '../../src/platform/store/migrate.js';
import { openStore } from '../../src/platform/store/store.js';
import { systemClock } from '../../src/kernel/clock.js';
import { Harness } from '../helpers/harness.js';
import { STORES, createPostgresDatabase, createTestStore } from '../helpers/stores.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

describe.each(STORES)('operations [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  it('is live and ready', async () => {
    expect((await h.call('GET', '/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await h.call('GET', '/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { store: 'ok', migrations: 'ok', shutdown: 'no' } });
  });

  it('is not ready once shutdown has started, nor before migrations are done', async () => {
    h.deps.lifecycle.shuttingDown = true;
    try {
      const response = await h.call('GET', '/readyz');
      expect(response.statusCode).toBe(503);
      expect(response.json().checks.shutdown).toBe('in progress');
    } finally {
      h.deps.lifecycle.shuttingDown = false;
    }
    h.deps.lifecycle.migrated = false;
    try {
      expect((await h.call('GET', '/readyz')).statusCode).toBe(503);
    } finally {
      h.deps.lifecycle.migrated = true;
    }
  });

  it('reports its version', async () => {
    const response = await h.call('GET', '/api/v1/version');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ version: expect.stringMatching(/^v\d+\.\d+\.\d+$/), store: kind });
  });

  it('serves a valid OpenAPI 3.1 document that lists the routes, and a docs page', async () => {
    const response = await h.call('GET', '/api/v1/openapi.json');
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/v1/auth/login', '/api/v1/api-keys', '/api/v1/audit-log', '/readyz']));
    const result = await validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const docs = await h.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
  });

  it('runs migrations a second time as a no-op', async () => {
    const again = await migrate(h.db);
    expect(again.applied).toEqual([]);
  });

  it('refuses a database left by an earlier major until `migrate` is run, and any jump over a major', async () => {
    const { store, destroy } = await createTestStore(kind, { empty: true });
    try {
      await migrate(store.db, { version: 'v1.4.0' });
      await expect(migrate(store.db, { version: 'v2.0.0' })).rejects.toThrow(/earlier major.*'migrate' command/);
      await expect(migrate(store.db, { version: 'v3.0.0' })).rejects.toThrow(/cannot skip a major/);
      await expect(migrate(store.db, { version: 'v0.9.0' })).rejects.toThrow(/newer than this/);
      await expect(migrate(store.db, { version: 'v1.5.2' })).resolves.toEqual({ applied: [] });
      await expect(migrate(store.db, { version: 'v2.0.0', allowMajorUpgrade: true })).resolves.toEqual({ applied: [] });
    } finally {
      await destroy();
    }
  });

  it('emit() queues the event envelope with its transaction, and nothing when it rolls back', async () => {
    const { emit } = await import('../../src/platform/outbox/outbox.js');
    const t = await h.tenant();
    const now = h.clock.now();
    const committed = await h.db.transaction().execute((tx) => emit(tx, t.tenantId, 'user.deleted', { id: 'u1' }, now));
    expect(committed).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/), timestamp: now.toISOString(),
      event_type: 'user.deleted', tenant_id: t.tenantId, data: { id: 'u1' },
    });
    await expect(h.db.transaction().execute(async (tx) => {
      await emit(tx, t.tenantId, 'user.deleted', { id: 'u2' }, now);
      throw new Error('rollback');
    })).rejects.toThrow('rollback');
    const rows = await h.db.selectFrom('webhook_messages').selectAll().where('tenant_id', '=', t.tenantId).execute();
    expect(rows.map((r) => JSON.parse(r.payload))).toEqual([committed]);
    expect(await h.db.selectFrom('webhook_jobs').select(['event_id', 'attempt']).where('tenant_id', '=', t.tenantId).execute())
      .toEqual([{ event_id: committed.id, attempt: 1 }]);
  });
});

describe.runIf(STORES.includes('postgres'))('PostgreSQL specifics [postgres]', () => {
  it('two processes migrating one database at once apply each migration once', async () => {
    const database = await createPostgresDatabase();
    const stores = await Promise.all([1, 2, 3].map(() => openStore({ databaseUrl: database.url })));
    try {
      const results = await Promise.all(stores.map((store) => migrate(store.db)));
      const applied = results.flatMap((r) => r.applied);
      const { migrations } = await import('../../src/platform/store/migrations/index.js');
      expect(applied.sort()).toEqual(Object.keys(migrations).sort());
      const rows = await stores[0]!.db.selectFrom('schema_migrations' as never).selectAll().execute();
      expect(rows).toHaveLength(Object.keys(migrations).length);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await database.drop();
    }
  });

  it('readiness fails while the database is unreachable and recovers when it is back', async () => {
    const database = await createPostgresDatabase();
    const target = new URL(database.url);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const viaProxy = new URL(database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const store = await openStore({ databaseUrl: viaProxy.toString() });
    await migrate(store.db);
    const deps = {
      config: loadConfig({ LOG_LEVEL: 'silent' }), store, clock: systemClock,
      lifecycle: { migrated: true, shuttingDown: false }, keyring: testKeyring(store.db),
    };
    const app = await buildApp(deps);
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await proxy.cut();
      const down = await app.inject({ method: 'GET', url: '/readyz' });
      expect(down.statusCode).toBe(503);
      expect(down.json().checks.store).toBe('unreachable');
      const api = await app.inject({ method: 'GET', url: '/api/v1/tenant', headers: { authorization: 'Bearer ugt_x' } });
      expect(api.statusCode).toBe(503);
      expect(api.json().code).toBe('unavailable');
      await proxy.restore();
      await expect.poll(async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode, { timeout: 10_000 }).toBe(200);
    } finally {
      await app.close();
      await store.close();
      await proxy.stop();
      await database.drop();
    }
  });
});
