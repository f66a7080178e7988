import { type Static, type TSchema, Type } from 'typebox';

/**
 * Beside its JSON Schema keywords, each variable carries annotations (Ajv knows them as
 * keywords without validation, read-env.ts): what a bad value is reported against, whether its
 * value stays out of messages, and for a URL the protocols it may have (env-checks.ts checks
 * them: a JSON Schema cannot parse a URL as Node does).
 */
export interface EnvAnnotations {
  /** `expected …` of the message; `{NAME}` stands for the value of variable NAME. */
  expected: string;
  /** The message shows `<hidden>` instead of the value. */
  secret?: boolean;
  /** `new URL(value).protocol` is one of them. */
  protocols?: string[];
}

export const ANNOTATION_KEYWORDS = ['expected', 'secret', 'protocols'] as const;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(minimum: number, maximum: number, fallback: number) {
  return Type.Integer({ minimum, maximum, default: fallback, expected: `an integer from ${minimum} to ${maximum}` });
}

function boolean(fallback: boolean) {
  return Type.Boolean({ default: fallback, expected: 'true or false' });
}

function text(fallback: string) {
  return Type.String({ minLength: 1, default: fallback, expected: 'a non-empty text' });
}

function url(protocols: string[], options: { default?: string } = {}) {
  return Type.String({ ...options, protocols, expected: `a URL (${protocols.join(', ')})` });
}

function email(options: { default?: string } = {}) {
  return Type.String({ ...options, pattern: '^[^\\s@]+@[^\\s@]+$', expected: 'an email address' });
}

/**
 * The environment the service reads, every variable by its name, in the order errors are
 * looked for: the first failing one is reported. README.md ("Configuration") lists the same
 * variables and defaults (test/config/config.test.ts checks it). An empty value is unset.
 */
export const EnvSchema = Type.Object({
  PORT: integer(0, 65535, 8080),
  HOST: text('0.0.0.0'),
  DATA_DIR: text('./data'),
  DATABASE_URL: Type.Optional(url(['postgres:', 'postgresql:'])),
  // Only with DATABASE_URL (env-checks.ts). The database URLs may name several hosts (database-url.ts).
  DATABASE_LISTEN_URL: Type.Optional(url(['postgres:', 'postgresql:'])),
  DATABASE_READ_URL: Type.Optional(url(['postgres:', 'postgresql:'])),
  // Required with DATABASE_URL (env-checks.ts); on the embedded store a key file in DATA_DIR stands in.
  DATA_ENCRYPTION_KEY: Type.Optional(Type.String({
    pattern: '^\\s*[A-Za-z0-9+/_-]{43}=?\\s*$', secret: true,
    expected: '32 random bytes in base64 (openssl rand -base64 32)',
  })),
  DATABASE_POOL_SIZE: integer(1, 1000, 10),
  DATABASE_POOL_TIMEOUT_MS: integer(1, 600_000, 5000),
  DATABASE_CONNECT_TIMEOUT_MS: integer(0, 3_600_000, 15_000),
  INGEST_MAX_PENDING: integer(1, 10_000_000, 20_000),
  POLICY_DRY_RUN_MAX_ROWS: integer(1, 100_000_000, 1_000_000),
  EMBEDDED_DURABLE_COMMITS: boolean(true),
  EMBEDDED_SHARED_BUFFERS_MB: integer(1, 1024, 16),
  BOOTSTRAP_ADMIN_EMAIL: Type.Optional(email()),
  // Its strength is checked by isStrongPassword (env-checks.ts), the rule every password follows.
  BOOTSTRAP_ADMIN_PASSWORD: Type.Optional(Type.String({
    secret: true, expected: 'at least 12 characters with upper case, lower case and digits',
  })),
  BOOTSTRAP_TENANT_NAME: text('Default'),
  PUBLIC_BASE_URL: url(['http:', 'https:'], { default: 'http://localhost:8080' }),
  SMTP_URL: Type.Optional(url(['smtp:', 'smtps:'])),
  MAIL_FROM: email({ default: 'no-reply@localhost' }),
  SESSION_TTL_SECONDS: integer(1, 31_536_000, 43200),
  // Written `0,5000,…`: read-env.ts splits it at the commas.
  WEBHOOK_RETRY_DELAYS_MS: Type.Array(Type.Integer({ minimum: 0 }), {
    default: [0, 5000, 30000, 300000, 1800000],
    expected: 'a comma-separated list of non-negative integers (milliseconds)',
  }),
  WEBHOOK_TIMEOUT_MS: integer(1, 600_000, 5000),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolean(false),
  // Read as a PEM file of certificates by env-checks.ts.
  WEBHOOK_CA_FILE: Type.Optional(Type.String({ expected: 'a PEM file of CA certificates' })),
  WEBHOOK_LEASE_MS: integer(1000, 3_600_000, 10_000),
  WEBHOOK_CONCURRENCY: integer(1, 100_000, 1000),
  // At most WEBHOOK_CONCURRENCY; unset: min(200, WEBHOOK_CONCURRENCY) (env-checks.ts).
  WEBHOOK_CONCURRENCY_PER_WEBHOOK: Type.Optional(Type.Integer({
    minimum: 1, maximum: 100_000, expected: 'an integer from 1 to {WEBHOOK_CONCURRENCY}',
  })),
  WEBHOOK_HISTORY_RETENTION_DAYS: integer(1, 36_500, 30),
  SERVE_WORKERS: boolean(true),
  BODY_LIMIT_BYTES: integer(1024, 1_073_741_824, 5_242_880),
  LOG_LEVEL: Type.Enum(LOG_LEVELS, { default: 'info', expected: `one of ${LOG_LEVELS.join(', ')}` }),
  RATE_LIMIT_PER_MINUTE: integer(0, 100_000_000, 60000),
  LOGIN_MAX_FAILURES: integer(1, 1_000_000, 10),
  SHUTDOWN_DELAY_MS: integer(0, 25_000, 0),
  METRICS_TOKEN: Type.Optional(Type.String({
    pattern: '^[\\x21-\\x7e]{16,}$', secret: true, expected: 'at least 16 printable characters without spaces',
  })),
});

/** The environment once validated: defaults filled in, numbers and booleans parsed. */
export type Env = Static<typeof EnvSchema>;

export type EnvName = keyof Env & string;

export const ENV_NAMES = Object.keys(EnvSchema.properties) as EnvName[];

export function schemaOf(name: EnvName): TSchema & EnvAnnotations {
  return EnvSchema.properties[name] as unknown as TSchema & EnvAnnotations;
}
