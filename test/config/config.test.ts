import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/process.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080, host: '0.0.0.0', dataDir: './data', databaseUrl: undefined,
      databasePoolSize: 10, databasePoolTimeoutMs: 5000, databaseConnectTimeoutMs: 15000, ingestMaxPending: 20000, policyDryRunMaxRows: 1_000_000,
      embeddedDurableCommits: true, embeddedSharedBuffersMb: 16,
      bootstrapAdminEmail: undefined, bootstrapAdminPassword: undefined, bootstrapTenantName: 'Default',
      publicBaseUrl: 'http://localhost:8080', smtpUrl: undefined, mailFrom: 'no-reply@localhost',
      sessionTtlSeconds: 43200, webhookRetryDelaysMs: [0, 5000, 30000, 300000, 1800000], webhookTimeoutMs: 5000,
      webhookAllowPrivateTargets: false, webhookCaFile: undefined, webhookLeaseMs: 10000, webhookConcurrency: 1000, webhookConcurrencyPerWebhook: 200, webhookHistoryRetentionDays: 30, serveWorkers: true, bodyLimitBytes: 5242880, logLevel: 'info',
      rateLimitPerMinute: 60000, loginMaxFailures: 10, shutdownDelayMs: 0, metricsToken: undefined,
    });
  });

  it('reads every variable', () => {
    const caFile = join(tempDir(), 'ca.pem');
    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const config = loadConfig({
      PORT: '9000', HOST: '127.0.0.1', DATA_DIR: '/tmp/x', DATABASE_URL: 'postgres://u@h:5432/db',
      BOOTSTRAP_ADMIN_EMAIL: 'a@b.test', BOOTSTRAP_ADMIN_PASSWORD: 'Strong-Password-1', BOOTSTRAP_TENANT_NAME: 'Acme',
      PUBLIC_BASE_URL: 'https://gov.acme.test/', SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'gov@acme.test',
      SESSION_TTL_SECONDS: '60', WEBHOOK_RETRY_DELAYS_MS: '0, 10,20', WEBHOOK_TIMEOUT_MS: '100',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: caFile, BODY_LIMIT_BYTES: '4096',
      LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', LOGIN_MAX_FAILURES: '3',
      DATABASE_CONNECT_TIMEOUT_MS: '2500', METRICS_TOKEN: 'a-metrics-token-of-32-characters', POLICY_DRY_RUN_MAX_ROWS: '5000',
    });
    expect(config).toMatchObject({
      port: 9000, host: '127.0.0.1', databaseUrl: 'postgres://u@h:5432/db', publicBaseUrl: 'https://gov.acme.test',
      webhookRetryDelaysMs: [0, 10, 20], webhookAllowPrivateTargets: true, rateLimitPerMinute: 0, loginMaxFailures: 3,
      webhookCaFile: caFile, databaseConnectTimeoutMs: 2500, metricsToken: 'a-metrics-token-of-32-characters',
      policyDryRunMaxRows: 5000,
    });
  });

  it.each([
    ['PORT', 'eighty'], ['PORT', '70000'], ['DATABASE_URL', 'mysql://x'], ['PUBLIC_BASE_URL', 'not a url'],
    ['SMTP_URL', 'http://x'], ['SESSION_TTL_SECONDS', '0'], ['WEBHOOK_RETRY_DELAYS_MS', '0,five'],
    ['WEBHOOK_TIMEOUT_MS', '-1'], ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'maybe'], ['BODY_LIMIT_BYTES', '1.5'],
    ['LOG_LEVEL', 'loud'], ['RATE_LIMIT_PER_MINUTE', '-5'], ['LOGIN_MAX_FAILURES', 'x'], ['SHUTDOWN_DELAY_MS', '60000'],
    ['WEBHOOK_LEASE_MS', '999'], ['WEBHOOK_CONCURRENCY', '0'], ['SERVE_WORKERS', 'maybe'],
    ['DATABASE_POOL_SIZE', '0'], ['DATABASE_POOL_TIMEOUT_MS', 'soon'], ['INGEST_MAX_PENDING', '0'], ['POLICY_DRY_RUN_MAX_ROWS', '0'],
    ['EMBEDDED_DURABLE_COMMITS', 'maybe'], ['EMBEDDED_SHARED_BUFFERS_MB', '0'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '-1'], ['METRICS_TOKEN', 'short'], ['METRICS_TOKEN', 'has a space in it, 16+'],
    ['WEBHOOK_CA_FILE', '/nonexistent/ca.pem'], ['WEBHOOK_CA_FILE', '/etc/hostname'],
    ['BOOTSTRAP_ADMIN_EMAIL', 'not-an-email'], ['BOOTSTRAP_ADMIN_PASSWORD', 'short'], ['MAIL_FROM', 'nobody'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name}=`));
  });

  it('refuses a per-webhook concurrency above the process concurrency', () => {
    expect(() => loadConfig({ WEBHOOK_CONCURRENCY: '10', WEBHOOK_CONCURRENCY_PER_WEBHOOK: '11' }))
      .toThrow(/^Invalid configuration: WEBHOOK_CONCURRENCY_PER_WEBHOOK=/);
    expect(loadConfig({ WEBHOOK_CONCURRENCY: '10' }).webhookConcurrencyPerWebhook).toBe(10);
  });

  it('never prints a rejected password', () => {
    expect(() => loadConfig({ BOOTSTRAP_ADMIN_PASSWORD: 'secretpass' })).toThrow(/<hidden>/);
    expect(() => loadConfig({ BOOTSTRAP_ADMIN_PASSWORD: 'secretpass' })).not.toThrow(/secretpass/);
  });
});
