import { checkEnv } from './env-checks.js';
import type { LOG_LEVELS } from './env-schema.js';
import { readEnv } from './read-env.js';

export { ConfigError } from './config-error.js';

/**
 * The service's whole configuration: read from the environment once (env-schema.ts declares
 * every variable), validated, deeply frozen and passed in. A bad value stops the start with a
 * message naming the variable.
 */
export interface Config {
  readonly server: ServerConfig;
  readonly store: StoreConfig;
  readonly ingest: {
    /** Interactions waiting for a group commit in one process; past it, creates get a 503 at once. */
    readonly maxPending: number;
  };
  readonly policies: {
    /** Most interactions a policy dry-run examines, newest first. */
    readonly dryRunMaxRows: number;
  };
  readonly auth: {
    /** Lifetime of a session token. */
    readonly sessionTtlSeconds: number;
    /** Failed logins per account per 15 minutes before a 429. */
    readonly loginMaxFailures: number;
  };
  /** The first tenant and its admin, created on an empty store only. */
  readonly bootstrap: {
    readonly adminEmail: string | undefined;
    readonly adminPassword: string | undefined;
    readonly tenantName: string;
  };
  readonly mail: {
    /** Undefined: emails are written to the log. */
    readonly smtpUrl: string | undefined;
    readonly from: string;
  };
  readonly webhooks: WebhooksConfig;
  /** Bearer token `GET /metrics` requires; undefined: the metrics are open (keep the port private). */
  readonly metrics: { readonly token: string | undefined };
}

export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  /** Base of the links in emails, without a trailing slash. */
  readonly publicBaseUrl: string;
  readonly bodyLimitBytes: number;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** Requests per minute per token or API key (0: off). */
  readonly rateLimitPerMinute: number;
  readonly shutdownDelayMs: number;
  /** `serve` runs the background workers beside the API (false: run them with `worker` elsewhere). */
  readonly serveWorkers: boolean;
}

export interface StoreConfig {
  readonly dataDir: string;
  /** Unset: the embedded store in `dataDir`. */
  readonly databaseUrl: string | undefined;
  /** A direct connection for LISTEN and session work, when databaseUrl goes through a transaction pooler. */
  readonly listenUrl: string | undefined;
  /** A replica that serves lists, stats, exports and search (each read sees what was committed before it). */
  readonly readUrl: string | undefined;
  /** Connections to PostgreSQL in one process. */
  readonly poolSize: number;
  /** Longest a request waits for a store connection or for its group commit to start before a 503. */
  readonly poolTimeoutMs: number;
  /** How long a start keeps retrying to reach PostgreSQL before it exits non-zero. */
  readonly connectTimeoutMs: number;
  /** The master key (base64) every tenant's keys are wrapped under; unset on the embedded store: its key file. */
  readonly encryptionKey: string | undefined;
  readonly embedded: {
    /** Embedded store: a commit returns once its WAL is fsynced (docs/embedded-store.md). */
    readonly durableCommits: boolean;
    /** Embedded store: PostgreSQL's shared_buffers, in MiB, inside the process's WASM memory. */
    readonly sharedBuffersMb: number;
  };
}

export interface WebhooksConfig {
  readonly retryDelaysMs: readonly number[];
  readonly timeoutMs: number;
  readonly allowPrivateTargets: boolean;
  readonly caFile: string | undefined;
  /** How long a worker reserves an attempt between two heartbeats (it renews every third of it). */
  readonly leaseMs: number;
  /** Attempts in flight in one process, all webhooks together. */
  readonly concurrency: number;
  /** Attempts in flight in one process for one webhook. */
  readonly concurrencyPerWebhook: number;
  readonly historyRetentionDays: number;
}

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const { values, text } = readEnv(env);
  const e = checkEnv(values, text);
  return deepFreeze<Config>({
    server: {
      port: e.PORT, host: e.HOST, publicBaseUrl: e.PUBLIC_BASE_URL, bodyLimitBytes: e.BODY_LIMIT_BYTES,
      logLevel: e.LOG_LEVEL, rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE, shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
      serveWorkers: e.SERVE_WORKERS,
    },
    store: {
      dataDir: e.DATA_DIR, databaseUrl: e.DATABASE_URL, listenUrl: e.DATABASE_LISTEN_URL,
      readUrl: e.DATABASE_READ_URL, poolSize: e.DATABASE_POOL_SIZE,
      poolTimeoutMs: e.DATABASE_POOL_TIMEOUT_MS, connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      encryptionKey: e.DATA_ENCRYPTION_KEY,
      embedded: { durableCommits: e.EMBEDDED_DURABLE_COMMITS, sharedBuffersMb: e.EMBEDDED_SHARED_BUFFERS_MB },
    },
    ingest: { maxPending: e.INGEST_MAX_PENDING },
    policies: { dryRunMaxRows: e.POLICY_DRY_RUN_MAX_ROWS },
    auth: { sessionTtlSeconds: e.SESSION_TTL_SECONDS, loginMaxFailures: e.LOGIN_MAX_FAILURES },
    bootstrap: { adminEmail: e.BOOTSTRAP_ADMIN_EMAIL, adminPassword: e.BOOTSTRAP_ADMIN_PASSWORD, tenantName: e.BOOTSTRAP_TENANT_NAME },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    webhooks: {
      retryDelaysMs: e.WEBHOOK_RETRY_DELAYS_MS, timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS, caFile: e.WEBHOOK_CA_FILE, leaseMs: e.WEBHOOK_LEASE_MS,
      concurrency: e.WEBHOOK_CONCURRENCY, concurrencyPerWebhook: e.WEBHOOK_CONCURRENCY_PER_WEBHOOK,
      historyRetentionDays: e.WEBHOOK_HISTORY_RETENTION_DAYS,
    },
    metrics: { token: e.METRICS_TOKEN },
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
