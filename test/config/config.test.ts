import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/process.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { ENV_NAMES, type EnvName, schemaOf } from '../../src/config/env-schema.js';

function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      server: {
        port: 8080, host: '0.0.0.0', publicBaseUrl: 'http://localhost:8080', bodyLimitBytes: 5242880, logLevel: 'info',
        rateLimitPerMinute: 60000, shutdownDelayMs: 0, serveWorkers: true,
      },
      store: {
        dataDir: './data', databaseUrl: undefined, poolSize: 10, poolTimeoutMs: 5000, connectTimeoutMs: 15000,
        embedded: { durableCommits: true, sharedBuffersMb: 16 },
      },
      ingest: { maxPending: 20000 },
      policies: { dryRunMaxRows: 1_000_000 },
      auth: { sessionTtlSeconds: 43200, loginMaxFailures: 10 },
      bootstrap: { adminEmail: undefined, adminPassword: undefined, tenantName: 'Default' },
      mail: { smtpUrl: undefined, from: 'no-reply@localhost' },
      webhooks: {
        retryDelaysMs: [0, 5000, 30000, 300000, 1800000], timeoutMs: 5000, allowPrivateTargets: false, caFile: undefined,
        leaseMs: 10000, concurrency: 1000, concurrencyPerWebhook: 200, historyRetentionDays: 30,
      },
      metrics: { token: undefined },
    });
  });

  it('reads every variable, trimmed, and ignores empty ones', () => {
    const caFile = join(tempDir(), 'ca.pem');
    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const config = loadConfig({
      PORT: '9000', HOST: '127.0.0.1', DATA_DIR: '/tmp/x', DATABASE_URL: 'postgres://u@h:5432/db',
      DATA_ENCRYPTION_KEY: ' dGVzdC1tYXN0ZXIta2V5LW9mLXRoZS10ZXN0LXN1aXQ= ',
      DATABASE_POOL_SIZE: '20', DATABASE_POOL_TIMEOUT_MS: '700', DATABASE_CONNECT_TIMEOUT_MS: '2500',
      INGEST_MAX_PENDING: '500', POLICY_DRY_RUN_MAX_ROWS: '5000', EMBEDDED_DURABLE_COMMITS: 'No', EMBEDDED_SHARED_BUFFERS_MB: '64',
      BOOTSTRAP_ADMIN_EMAIL: 'a@b.test', BOOTSTRAP_ADMIN_PASSWORD: 'Strong-Password-1', BOOTSTRAP_TENANT_NAME: 'Acme',
      PUBLIC_BASE_URL: 'https://gov.acme.test/', SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'gov@acme.test',
      SESSION_TTL_SECONDS: '60', WEBHOOK_RETRY_DELAYS_MS: '0, 10,20', WEBHOOK_TIMEOUT_MS: '100',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: caFile, WEBHOOK_LEASE_MS: '3000', WEBHOOK_CONCURRENCY: '50',
      WEBHOOK_CONCURRENCY_PER_WEBHOOK: '5', WEBHOOK_HISTORY_RETENTION_DAYS: ' 7 ', SERVE_WORKERS: '0', BODY_LIMIT_BYTES: '4096',
      LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', LOGIN_MAX_FAILURES: '3', SHUTDOWN_DELAY_MS: '1500',
      METRICS_TOKEN: 'a-metrics-token-of-32-characters', OTHER_VARIABLE: 'ignored',
    });
    expect(config).toEqual({
      server: {
        port: 9000, host: '127.0.0.1', publicBaseUrl: 'https://gov.acme.test', bodyLimitBytes: 4096, logLevel: 'warn',
        rateLimitPerMinute: 0, shutdownDelayMs: 1500, serveWorkers: false,
      },
      store: {
        dataDir: '/tmp/x', databaseUrl: 'postgres://u@h:5432/db', poolSize: 20, poolTimeoutMs: 700, connectTimeoutMs: 2500,
        encryptionKey: 'dGVzdC1tYXN0ZXIta2V5LW9mLXRoZS10ZXN0LXN1aXQ=',
        embedded: { durableCommits: false, sharedBuffersMb: 64 },
      },
      ingest: { maxPending: 500 },
      policies: { dryRunMaxRows: 5000 },
      auth: { sessionTtlSeconds: 60, loginMaxFailures: 3 },
      bootstrap: { adminEmail: 'a@b.test', adminPassword: 'Strong-Password-1', tenantName: 'Acme' },
      mail: { smtpUrl: 'smtp://127.0.0.1:2525', from: 'gov@acme.test' },
      webhooks: {
        retryDelaysMs: [0, 10, 20], timeoutMs: 100, allowPrivateTargets: true, caFile, leaseMs: 3000,
        concurrency: 50, concurrencyPerWebhook: 5, historyRetentionDays: 7,
      },
      metrics: { token: 'a-metrics-token-of-32-characters' },
    });
    expect(loadConfig({ PORT: '  ', LOG_LEVEL: '', SERVE_WORKERS: ' ' })).toEqual(loadConfig({}));
  });

  it('is frozen all the way down', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.store.embedded)).toBe(true);
    expect(Object.isFrozen(config.webhooks.retryDelaysMs)).toBe(true);
  });

  it.each([
    ['PORT', 'eighty', 'an integer from 0 to 65535'], ['PORT', '70000', 'an integer from 0 to 65535'],
    ['PORT', '1e3', 'an integer from 0 to 65535'], ['PORT', '0x50', 'an integer from 0 to 65535'],
    ['DATABASE_URL', 'mysql://x', 'a URL (postgres:, postgresql:)'], ['PUBLIC_BASE_URL', 'not a url', 'a URL (http:, https:)'],
    ['SMTP_URL', 'http://x', 'a URL (smtp:, smtps:)'], ['SESSION_TTL_SECONDS', '0', 'an integer from 1 to 31536000'],
    ['WEBHOOK_RETRY_DELAYS_MS', '0,five', 'a comma-separated list of non-negative integers (milliseconds)'],
    ['WEBHOOK_RETRY_DELAYS_MS', '0,,5', 'a comma-separated list of non-negative integers (milliseconds)'],
    ['WEBHOOK_TIMEOUT_MS', '-1', 'an integer from 1 to 600000'], ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'maybe', 'true or false'],
    ['BODY_LIMIT_BYTES', '1.5', 'an integer from 1024 to 1073741824'],
    ['LOG_LEVEL', 'loud', 'one of fatal, error, warn, info, debug, trace, silent'],
    ['RATE_LIMIT_PER_MINUTE', '-5', 'an integer from 0 to 100000000'], ['LOGIN_MAX_FAILURES', 'x', 'an integer from 1 to 1000000'],
    ['SHUTDOWN_DELAY_MS', '60000', 'an integer from 0 to 25000'], ['WEBHOOK_LEASE_MS', '999', 'an integer from 1000 to 3600000'],
    ['WEBHOOK_CONCURRENCY', '0', 'an integer from 1 to 100000'], ['WEBHOOK_CONCURRENCY_PER_WEBHOOK', 'x', 'an integer from 1 to 1000'],
    ['WEBHOOK_HISTORY_RETENTION_DAYS', '36501', 'an integer from 1 to 36500'], ['SERVE_WORKERS', 'maybe', 'true or false'],
    ['DATABASE_POOL_SIZE', '0', 'an integer from 1 to 1000'], ['DATABASE_POOL_TIMEOUT_MS', 'soon', 'an integer from 1 to 600000'],
    ['INGEST_MAX_PENDING', '0', 'an integer from 1 to 10000000'], ['POLICY_DRY_RUN_MAX_ROWS', '0', 'an integer from 1 to 100000000'],
    ['EMBEDDED_DURABLE_COMMITS', 'maybe', 'true or false'], ['EMBEDDED_SHARED_BUFFERS_MB', '0', 'an integer from 1 to 1024'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '-1', 'an integer from 0 to 3600000'],
    ['WEBHOOK_CA_FILE', '/nonexistent/ca.pem', 'a readable PEM file of CA certificates (ENOENT)'],
    ['WEBHOOK_CA_FILE', '/etc/hostname', 'a PEM file of CA certificates'],
    ['BOOTSTRAP_ADMIN_EMAIL', 'not-an-email', 'an email address'], ['MAIL_FROM', 'nobody', 'an email address'],
  ])('refuses %s=%s with a message naming the variable', (name, value, expected) => {
    const error = errorOf({ [name]: ` ${value} ` });
    expect(error.variable).toBe(name);
    expect(error.message).toBe(`Invalid configuration: ${name}=${JSON.stringify(value)}; expected ${expected}`);
  });

  it.each([
    ['METRICS_TOKEN', 'short', 'at least 16 printable characters without spaces'],
    ['METRICS_TOKEN', 'has a space in it, 16+', 'at least 16 printable characters without spaces'],
    ['BOOTSTRAP_ADMIN_PASSWORD', 'short', 'at least 12 characters with upper case, lower case and digits'],
    ['BOOTSTRAP_ADMIN_PASSWORD', 'secretpass', 'at least 12 characters with upper case, lower case and digits'],
  ])('never prints a rejected secret: %s=%s', (name, value, expected) => {
    const error = errorOf({ [name]: value });
    expect(error.message).toBe(`Invalid configuration: ${name}="<hidden>"; expected ${expected}`);
    expect(error.message).not.toContain(value);
  });

  it.each([
    ['DATABASE_URL', 'mysql://ugs:s3cr3t-pw@db.internal:5432/ugs', 'mysql://ugs:***@db.internal:5432/ugs', 'a URL (postgres:, postgresql:)'],
    ['SMTP_URL', 'http://mailer:s3cr3t-pw@smtp.internal', 'http://mailer:***@smtp.internal', 'a URL (smtp:, smtps:)'],
  ])('never prints the password of a rejected URL: %s', (name, value, shown, expected) => {
    const error = errorOf({ [name]: value });
    expect(error.message).toBe(`Invalid configuration: ${name}="${shown}"; expected ${expected}`);
    expect(error.message).not.toContain('s3cr3t-pw');
  });

  it('refuses a per-webhook concurrency above the process concurrency', () => {
    expect(errorOf({ WEBHOOK_CONCURRENCY: '10', WEBHOOK_CONCURRENCY_PER_WEBHOOK: '11' }).message)
      .toBe('Invalid configuration: WEBHOOK_CONCURRENCY_PER_WEBHOOK="11"; expected an integer from 1 to 10');
    expect(loadConfig({ WEBHOOK_CONCURRENCY: '10' }).webhooks.concurrencyPerWebhook).toBe(10);
  });

  it('takes database URLs of several hosts, a direct URL for LISTEN and a replica, all beside DATABASE_URL only', () => {
    const key = { DATA_ENCRYPTION_KEY: 'dGVzdC1tYXN0ZXIta2V5LW9mLXRoZS10ZXN0LXN1aXQ=' };
    const config = loadConfig({
      ...key, DATABASE_URL: 'postgres://u:pw@db1:5432,db2:5433/gov?target_session_attrs=read-write',
      DATABASE_LISTEN_URL: 'postgres://u:pw@db1:5432,db2:5433/gov?target_session_attrs=primary',
      DATABASE_READ_URL: 'postgresql://u:pw@replica/gov',
    });
    expect(config.store.listenUrl).toBe('postgres://u:pw@db1:5432,db2:5433/gov?target_session_attrs=primary');
    expect(config.store.readUrl).toBe('postgresql://u:pw@replica/gov');
    expect(errorOf({ DATABASE_LISTEN_URL: 'postgres://db/gov' }).message).toBe('Invalid configuration: DATABASE_URL=""; '
      + 'expected a URL (postgres:, postgresql:): it is required with DATABASE_LISTEN_URL');
    expect(errorOf({ DATABASE_READ_URL: 'postgres://replica/gov' }).variable).toBe('DATABASE_URL');
    expect(errorOf({ ...key, DATABASE_URL: 'postgres://db1,db2/gov?target_session_attrs=standby' }).message)
      .toBe('Invalid configuration: DATABASE_URL="standby"; expected target_session_attrs any, read-write or primary');
    expect(errorOf({ ...key, DATABASE_URL: 'postgres://u:secret@db1:5432,db2:x/gov' }).message).not.toContain('secret');
    expect(errorOf({ ...key, DATABASE_URL: 'postgres://db/gov', DATABASE_READ_URL: 'postgres://db/gov?target_session_attrs=read-write' })
      .variable).toBe('DATABASE_READ_URL');
  });

  it('reports the first failing variable, in the order of the schema', () => {
    expect(errorOf({ LOG_LEVEL: 'loud', PORT: 'x', SMTP_URL: 'http://x' }).variable).toBe('PORT');
  });
});

describe("README's configuration table", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n');
  const header = readme.indexOf('| variable | default | meaning |');
  const end = readme.findIndex((line, index) => index > header && !line.startsWith('|'));
  const rows = readme.slice(header + 2, end).map((line) => line.split(' | '));
  const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

  it('lists every variable of the schema, and only those', () => {
    expect(header).toBeGreaterThan(0);
    expect(rows.flatMap(([names]) => backticked(names!)).sort()).toEqual([...ENV_NAMES].sort());
  });

  it("gives the schema's defaults", () => {
    let compared = 0;
    for (const [names, defaults] of rows) {
      const values = backticked(defaults!);
      backticked(names!).forEach((name, index) => {
        const fallback = (schemaOf(name as EnvName) as { default?: unknown }).default;
        if (fallback === undefined) return;
        compared += 1;
        const written = Array.isArray(fallback) ? fallback.join(',') : String(fallback);
        expect(values[index], name).toBe(written);
      });
    }
    expect(compared).toBe(ENV_NAMES.filter((name) => (schemaOf(name) as { default?: unknown }).default !== undefined).length);
  });
});
