import type { FastifyInstance } from 'fastify';
import { testKeyring } from '../helpers/keyring.js';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { Deps } from '../../src/platform/deps.js';
import { openStore, type Store } from '../../src/platform/store/store.js';
import { buildServices, type Services } from '../../src/services.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';

const MAX_PENDING = 5;
const WAIT_MS = 400;

// A saturated store is simulated by a lock that holds every insert into interactions: only a
// server lets another session hold it while the service works, hence PostgreSQL only.
describe.skipIf(!process.env.TEST_DATABASE_URL)('back-pressure on a saturated store [postgres]', () => {
  let h: Harness;
  let store: Store;
  let app: FastifyInstance;
  let deps: Deps;
  let services: Services;
  let t: TestTenant;
  let blocker: pg.Client;
  beforeAll(async () => {
    h = await Harness.start('postgres');
    t = await h.tenant();
    // An instance with two connections (one for the group commit in flight), a short wait and a short queue.
    const env = {
      LOG_LEVEL: 'silent', INGEST_MAX_PENDING: String(MAX_PENDING), DATABASE_POOL_TIMEOUT_MS: String(WAIT_MS), DATABASE_POOL_SIZE: '2',
    };
    store = await openStore({ databaseUrl: h.databaseUrl, poolSize: 2, poolTimeoutMs: WAIT_MS });
    deps = { ...h.deps, config: loadConfig(env), store, lifecycle: { migrated: true, shuttingDown: false }, keyring: testKeyring(store.db) };
    services = buildServices(deps);
    app = await buildApp(deps, { services });
    await app.ready();
    blocker = new pg.Client({ connectionString: h.databaseUrl });
    await blocker.connect();
  });
  afterAll(async () => {
    await blocker?.end();
    await app?.close();
    await store?.close();
    await h?.close();
  });

  // Sent at once (inject's chain would wait for the first `then`).
  const create = (body = interactionBody()) => app.inject({
    method: 'POST', url: '/api/v1/interactions', payload: body, headers: { authorization: `Bearer ${t.adminToken}` },
  }).then((response) => response);

  async function waitForBlockedInsert(): Promise<void> {
    for (let i = 0; i < 200; i += 1) {
      // The insert waits for its lock while being parsed, before pg_stat_activity shows it: read pg_locks.
      const { rows } = await blocker.query(`select 1 from pg_locks where relation = 'interactions'::regclass and not granted`);
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the first create never reached its insert');
  }

  it('answers 503 unavailable with Retry-After past the queue\'s room or its wait, stores none of those, and recovers', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/v1/tenant', headers: { authorization: `Bearer ${t.adminToken}` } }))
      .statusCode).toBe(200);
    await blocker.query('begin');
    await blocker.query('lock table interactions in share row exclusive mode');

    const firstBody = interactionBody();
    const first = create(firstBody);
    await waitForBlockedInsert();
    // The queue takes MAX_PENDING of them and refuses the others at once; the queued ones are
    // refused when their wait is over, still unwritten.
    const answers = Array.from({ length: MAX_PENDING + 3 }, () => create());
    for (let i = 0; i < 100 && services.ingest.pending.requests < MAX_PENDING; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(services.ingest.pending.requests).toBe(MAX_PENDING);
    for (const answer of await Promise.all(answers)) {
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toMatchObject({ code: 'unavailable' });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(services.ingest.pending.requests).toBe(0);

    // With both connections busy, a request waits its bound for one, then is refused the same way.
    const busy = sql`select pg_sleep(${(WAIT_MS * 3) / 1000})`.execute(store.db);
    const list = await app.inject({ method: 'GET', url: '/api/v1/interactions', headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(list.statusCode).toBe(503);
    expect(list.json()).toMatchObject({ code: 'unavailable' });
    expect(Number(list.headers['retry-after'])).toBeGreaterThan(0);
    await busy;

    await blocker.query('rollback');
    expect((await first).statusCode).toBe(201);
    const stored = await h.db.selectFrom('interactions').select('content_hash').where('tenant_id', '=', t.tenantId).execute();
    expect(stored.map((row) => row.content_hash)).toEqual([firstBody.content_hash]);
    expect((await create()).statusCode).toBe(201);
  });
});
