import { readFileSync } from 'node:fs';
import { isStrongPassword } from '../kernel/passwords.js';

/**
 * The service's whole configuration: read from the environment once, validated, frozen and
 * passed in. A bad value stops the start with a message naming the variable.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Connections to PostgreSQL in one process. */
  databasePoolSize: number;
  /** How long a start keeps retrying to reach PostgreSQL before it exits non-zero. */
  databaseConnectTimeoutMs: number;
  /** Longest a request waits for a store connection or for its group commit to start before a 503. */
  databasePoolTimeoutMs: number;
  /** Interactions waiting for a group commit in one process; past it, creates get a 503 at once. */
  ingestMaxPending: number;
  /** Most interactions a policy dry-run examines, newest first. */
  policyDryRunMaxRows: number;
  /** Embedded store: a commit returns once its WAL is fsynced (docs/embedded-store.md). */
  embeddedDurableCommits: boolean;
  /** Embedded store: PostgreSQL's shared_buffers, in MiB, inside the process's WASM memory. */
  embeddedSharedBuffersMb: number;
  bootstrapAdminEmail: string | undefined;
  bootstrapAdminPassword: string | undefined;
  bootstrapTenantName: string;
  publicBaseUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  sessionTtlSeconds: number;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  webhookAllowPrivateTargets: boolean;
  webhookCaFile: string | undefined;
  /** How long a worker reserves an attempt between two heartbeats (it renews every third of it). */
  webhookLeaseMs: number;
  /** Attempts in flight in one process, all webhooks together. */
  webhookConcurrency: number;
  /** Attempts in flight in one process for one webhook. */
  webhookConcurrencyPerWebhook: number;
  webhookHistoryRetentionDays: number;
  /** `serve` runs the background workers beside the API (false: run them with `worker` elsewhere). */
  serveWorkers: boolean;
  bodyLimitBytes: number;
  logLevel: string;
  rateLimitPerMinute: number;
  loginMaxFailures: number;
  shutdownDelayMs: number;
  /** Bearer token `GET /metrics` requires; undefined: the metrics are open (keep the port private). */
  metricsToken: string | undefined;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, expected: string, value: string) {
    super(`Invalid configuration: ${variable}=${JSON.stringify(value)}; expected ${expected}`);
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, 'true or false', raw);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `a URL (${protocols.join(', ')})`, raw);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `a URL (${protocols.join(', ')})`, raw);
  }
  return raw;
}

function email(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw !== undefined && !/^[^\s@]+@[^\s@]+$/.test(raw)) {
    throw new ConfigError(name, 'an email address', raw);
  }
  return raw;
}

function pemFile(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let pem: string;
  try {
    pem = readFileSync(raw, 'utf8');
  } catch (error) {
    throw new ConfigError(name, `a readable PEM file of CA certificates (${(error as { code?: string }).code ?? 'unreadable'})`, raw);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(name, 'a PEM file of CA certificates', raw);
  return raw;
}

function token(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw !== undefined && !/^[\x21-\x7e]{16,}$/.test(raw)) {
    throw new ConfigError(name, 'at least 16 printable characters without spaces', '<hidden>');
  }
  return raw;
}

function delays(env: Env, name: string, fallback: number[]): number[] {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d+$/.test(part))) {
    throw new ConfigError(name, 'a comma-separated list of non-negative integers (milliseconds)', raw);
  }
  return parts.map(Number);
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, logLevel);
  }
  const bootstrapAdminPassword = read(env, 'BOOTSTRAP_ADMIN_PASSWORD');
  if (bootstrapAdminPassword !== undefined && !isStrongPassword(bootstrapAdminPassword)) {
    throw new ConfigError(
      'BOOTSTRAP_ADMIN_PASSWORD',
      'at least 12 characters with upper case, lower case and digits',
      '<hidden>',
    );
  }
  const webhookTimeoutMs = integer(env, 'WEBHOOK_TIMEOUT_MS', 5000, 1, 600_000);
  const webhookConcurrency = integer(env, 'WEBHOOK_CONCURRENCY', 1000, 1, 100_000);
  return Object.freeze({
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: read(env, 'HOST') ?? '0.0.0.0',
    dataDir: read(env, 'DATA_DIR') ?? './data',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    databasePoolTimeoutMs: integer(env, 'DATABASE_POOL_TIMEOUT_MS', 5000, 1, 600_000),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 15_000, 0, 3_600_000),
    ingestMaxPending: integer(env, 'INGEST_MAX_PENDING', 20_000, 1, 10_000_000),
    policyDryRunMaxRows: integer(env, 'POLICY_DRY_RUN_MAX_ROWS', 1_000_000, 1, 100_000_000),
    embeddedDurableCommits: boolean(env, 'EMBEDDED_DURABLE_COMMITS', true),
    embeddedSharedBuffersMb: integer(env, 'EMBEDDED_SHARED_BUFFERS_MB', 16, 1, 1024),
    bootstrapAdminEmail: email(env, 'BOOTSTRAP_ADMIN_EMAIL'),
    bootstrapAdminPassword,
    bootstrapTenantName: read(env, 'BOOTSTRAP_TENANT_NAME') ?? 'Default',
    publicBaseUrl: (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? 'http://localhost:8080').replace(/\/+$/, ''),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: email(env, 'MAIL_FROM') ?? 'no-reply@localhost',
    sessionTtlSeconds: integer(env, 'SESSION_TTL_SECONDS', 43200, 1, 31_536_000),
    webhookRetryDelaysMs: delays(env, 'WEBHOOK_RETRY_DELAYS_MS', [0, 5000, 30000, 300000, 1800000]),
    webhookTimeoutMs,
    webhookAllowPrivateTargets: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    webhookCaFile: pemFile(env, 'WEBHOOK_CA_FILE'),
    webhookLeaseMs: integer(env, 'WEBHOOK_LEASE_MS', 10_000, 1000, 3_600_000),
    webhookConcurrency,
    webhookConcurrencyPerWebhook: integer(env, 'WEBHOOK_CONCURRENCY_PER_WEBHOOK', Math.min(200, webhookConcurrency), 1, webhookConcurrency),
    webhookHistoryRetentionDays: integer(env, 'WEBHOOK_HISTORY_RETENTION_DAYS', 30, 1, 36_500),
    serveWorkers: boolean(env, 'SERVE_WORKERS', true),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 5_242_880, 1024, 1_073_741_824),
    logLevel,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 60000, 0, 100_000_000),
    loginMaxFailures: integer(env, 'LOGIN_MAX_FAILURES', 10, 1, 1_000_000),
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 0, 0, 25_000),
    metricsToken: token(env, 'METRICS_TOKEN'),
  });
}
