import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import { buildApp } from '../../src/app.js';
import { logRedaction } from '../../src/edge/log-redaction.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { Deps } from '../../src/platform/deps.js';
import { inFixedScope } from '../../src/platform/store/scoped-connections.js';
import { migrate } from '../../src/platform/store/migrate.js';
import type { StoreKind } from '../../src/platform/store/store.js';
import { AdjustableClock } from '../../src/kernel/clock.js';
import { createTenant } from '../../src/modules/tenants/tenants.service.js';
import { createWorkers, type BackgroundWorker, type WorkerOptions } from '../../src/workers.js';
import { EVENT_TYPES } from '../../src/platform/outbox/event-types.js';
import { uuidv7 } from '../../src/kernel/ids.js';
import { hashPassword } from '../../src/kernel/passwords.js';
import { createTestStore, type TestStore } from './stores.js';
import { testKeyring } from './keyring.js';
import { openPayload } from '../../src/platform/outbox/outbox.js';

export const TEST_PASSWORD = 'Correct-Horse-42';

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Start the background workers (mail, deliveries, retention) too. */
  workers?: boolean;
  /** Options of those workers (default: poll every 50 ms). */
  workerOptions?: WorkerOptions;
  /**
   * Give each tenant a webhook subscribed to every event type, so that the events the tenant's
   * changes emit are kept (an event no webhook wants leaves nothing) and `capturedEvents` reads
   * them. Its receiver does not exist: use it only without workers.
   */
  captureEvents?: boolean;
  /** Where the app's and the workers' log lines go (default: standard output; LOG_LEVEL is `silent` unless set in env). */
  logStream?: DestinationStream;
}

export interface TestTenant {
  tenantId: string;
  adminId: string;
  adminEmail: string;
  adminToken: string;
}

export interface CallOptions {
  token?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
}

/** What `captureEvents` keeps: every type but the audit log's stream, which tests subscribe to by name. */
const DOMAIN_EVENT_TYPES = EVENT_TYPES.filter((type) => type !== 'audit.entry');

/** The application on a real store, with an adjustable clock, driven through HTTP (inject). */
export class Harness {
  private tenantCount = 0;

  private constructor(
    readonly kind: StoreKind,
    readonly app: FastifyInstance,
    readonly deps: Deps,
    readonly clock: AdjustableClock,
    private readonly testStore: TestStore,
    private readonly workers: BackgroundWorker[],
    private readonly captureEvents: boolean,
  ) {}

  static async start(kind: StoreKind, options: HarnessOptions = {}): Promise<Harness> {
    const testStore = await createTestStore(kind);
    const config: Config = loadConfig({ LOG_LEVEL: 'silent', ...options.env });
    const clock = new AdjustableClock();
    const deps: Deps = {
      config, store: testStore.store, clock, lifecycle: { migrated: false, shuttingDown: false },
      keyring: testKeyring(testStore.store.db, config.store.encryptionKey),
    };
    await migrate(testStore.store.db);
    deps.lifecycle.migrated = true;
    // CONSOLE_OUT_DIR: the console the global setup built there instead of dist/console.
    const app = await buildApp(deps, { consoleDir: process.env.CONSOLE_OUT_DIR, logStream: options.logStream });
    await app.ready();
    if (options.captureEvents && options.workers) throw new Error('captureEvents is for harnesses without workers');
    const workers = options.workers
      ? createWorkers(deps, pino({ level: config.server.logLevel, ...logRedaction }, options.logStream), { pollIntervalMs: 50, ...options.workerOptions })
      : [];
    for (const worker of workers) await worker.start();
    return new Harness(kind, app, deps, clock, testStore, workers, options.captureEvents ?? false);
  }

  /** The store as the tables' owner, every tenant's rows visible: for a test's own setup and checks. */
  get db() {
    return inFixedScope(this.deps.store.db, { kind: 'owner' });
  }

  get databaseUrl(): string | undefined {
    return this.testStore.databaseUrl;
  }

  async close(): Promise<void> {
    for (const worker of this.workers) await worker.stop();
    await this.app.close();
    await this.testStore.destroy();
  }

  /** A new tenant with a logged-in admin: each test gets its own, so tests never share data. */
  async tenant(name = 'Acme'): Promise<TestTenant> {
    this.tenantCount += 1;
    const adminEmail = `admin${this.tenantCount}-${Date.now()}@${name.toLowerCase().replace(/\W/g, '')}.test`;
    const { tenantId, adminId } = await createTenant(
      this.db,
      { name, adminEmail, adminPassword: TEST_PASSWORD },
      this.clock.now(),
    );
    if (this.captureEvents) await this.addCatchAllWebhook(tenantId);
    const adminToken = await this.login(adminEmail, TEST_PASSWORD);
    return { tenantId, adminId, adminEmail, adminToken };
  }

  private async addCatchAllWebhook(tenantId: string): Promise<void> {
    const now = this.clock.now();
    await this.db.insertInto('webhooks').values({
      tenant_id: tenantId, id: `whk_capture${this.tenantCount}`, url: 'https://127.0.0.1:9/capture',
      events: JSON.stringify(DOMAIN_EVENT_TYPES), active: true, active_since: now, description: 'test capture', headers: '{}',
      auth_token: '', signing_secret: 'whsec_capture', previous_signing_secret: null, previous_secret_expires_at: null,
      created_by: null, created_at: now, updated_at: now, last_delivery_at: null,
    }).execute();
  }

  /** An active user of the tenant, created directly in the store, logged in. */
  async user(tenant: TestTenant, role: 'admin' | 'viewer' = 'viewer'): Promise<{ id: string; email: string; token: string }> {
    this.tenantCount += 1;
    const email = `${role}${this.tenantCount}-${Date.now()}@acme.test`;
    const now = this.clock.now();
    const id = uuidv7(now.getTime());
    await this.db.insertInto('users').values({
      tenant_id: tenant.tenantId, id, email, display_name: null, role, status: 'active',
      password_hash: await hashPassword(TEST_PASSWORD), invited_by: null, invitation_expires_at: null,
      created_at: now, updated_at: now, last_login: null,
    }).execute();
    return { id, email, token: await this.login(email, TEST_PASSWORD) };
  }

  /** An API key of the tenant with the given scopes, made through the API. */
  async apiKey(tenant: TestTenant, scopes: string[]): Promise<string> {
    const response = await this.call('POST', '/api/v1/api-keys', { token: tenant.adminToken, body: { name: 'test key', scopes } });
    if (response.statusCode !== 201) throw new Error(`api key failed: ${response.statusCode} ${response.body}`);
    return (response.json() as { key: string }).key;
  }

  async login(email: string, password: string): Promise<string> {
    const response = await this.call('POST', '/api/v1/auth/login', { body: { email, password } });
    if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
    return (response.json() as { token: string }).token;
  }

  call(method: string, url: string, options: CallOptions = {}): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    return this.app.inject({
      method: method as 'GET',
      url,
      headers,
      query: options.query ? Object.fromEntries(Object.entries(options.query).map(([k, v]) => [k, String(v)])) : undefined,
      ...(options.body === undefined ? {} : { payload: options.body as object }),
    });
  }
}

/**
 * The events emitted for a tenant, oldest first (optionally of one type), read from the stored
 * envelopes of queued events: with `captureEvents`, every event is queued.
 */
export async function capturedEvents(h: Harness, tenantId: string, eventType?: string) {
  let query = h.db.selectFrom('webhook_messages').select(['event_type', 'payload']).where('tenant_id', '=', tenantId);
  if (eventType) query = query.where('event_type', '=', eventType);
  const rows = await query.orderBy('created_at').orderBy('id').execute();
  const keys = await h.deps.keyring.forTenant(tenantId);
  return rows.map((row) => ({ type: row.event_type, data: (JSON.parse(openPayload(keys, row.payload)) as { data: Record<string, any> }).data }));
}
