import { readFileSync } from 'node:fs';
import { isStrongPassword } from '../kernel/passwords.js';
import { ConfigError, type EnvText, invalidVariable } from './config-error.js';
import { DatabaseUrlError, type DatabaseTarget, parseDatabaseUrl } from './database-url.js';
import { ENV_NAMES, type Env, type EnvName, schemaOf } from './env-schema.js';

// What the schema cannot say, checked once it passed, each failure worded like the schema's.

const DATABASE_URLS = ['DATABASE_URL', 'DATABASE_LISTEN_URL', 'DATABASE_READ_URL'] as const;

/** Every URL variable parses as a URL with one of its schema's protocols; a database URL may name several hosts. */
function checkUrls(values: Env, text: EnvText): void {
  for (const name of ENV_NAMES) {
    const { protocols } = schemaOf(name);
    const value = values[name];
    if (!protocols || typeof value !== 'string') continue;
    if ((DATABASE_URLS as readonly string[]).includes(name)) {
      checkDatabaseUrl(name, value, text, values);
      continue;
    }
    let protocol: string | undefined;
    try {
      protocol = new URL(value).protocol;
    } catch {
      protocol = undefined;
    }
    if (!protocol || !protocols.includes(protocol)) throw invalidVariable(name, text, values);
  }
}

function checkDatabaseUrl(name: EnvName, value: string, text: EnvText, values: Env): void {
  let target: DatabaseTarget;
  try {
    target = parseDatabaseUrl(value);
  } catch (error) {
    const attrs = error instanceof DatabaseUrlError && /^target_session_attrs=(.*) \(/.exec(error.message);
    if (attrs) throw new ConfigError(name, 'target_session_attrs any, read-write or primary', attrs[1]!);
    throw invalidVariable(name, text, values);
  }
  if (name === 'DATABASE_READ_URL' && target.targetSessionAttrs !== 'any') {
    throw new ConfigError(name, 'a replica (target_session_attrs any, or left out)', 'read-write');
  }
}

/** WEBHOOK_CA_FILE is a readable file of PEM certificates. */
function checkCaFile(values: Env, text: EnvText): void {
  const path = values.WEBHOOK_CA_FILE;
  if (path === undefined) return;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new ConfigError('WEBHOOK_CA_FILE', `a readable PEM file of CA certificates (${code})`, path);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw invalidVariable('WEBHOOK_CA_FILE', text, values);
}

/** On PostgreSQL the master key comes from the environment: no key file is written beside a shared database. */
function checkEncryptionKey(values: Env): void {
  if (values.DATABASE_URL !== undefined && values.DATA_ENCRYPTION_KEY === undefined) {
    throw new ConfigError('DATA_ENCRYPTION_KEY', '32 random bytes in base64 (openssl rand -base64 32): it is required '
      + 'with DATABASE_URL', '');
  }
}

/** The other database URLs name connections to the database of DATABASE_URL: they need it. */
function checkDatabaseUrls(values: Env): void {
  for (const name of ['DATABASE_LISTEN_URL', 'DATABASE_READ_URL'] as const) {
    if (values[name] !== undefined && values.DATABASE_URL === undefined) {
      throw new ConfigError('DATABASE_URL', `a URL (postgres:, postgresql:): it is required with ${name}`, '');
    }
  }
}

/** BOOTSTRAP_ADMIN_PASSWORD follows the rule of every password. */
function checkAdminPassword(values: Env, text: EnvText): void {
  const password = values.BOOTSTRAP_ADMIN_PASSWORD;
  if (password !== undefined && !isStrongPassword(password)) throw invalidVariable('BOOTSTRAP_ADMIN_PASSWORD', text, values);
}

/** WEBHOOK_CONCURRENCY_PER_WEBHOOK: at most WEBHOOK_CONCURRENCY; unset, min(200, WEBHOOK_CONCURRENCY). */
function concurrencyPerWebhook(values: Env, text: EnvText): number {
  const perWebhook = values.WEBHOOK_CONCURRENCY_PER_WEBHOOK ?? Math.min(200, values.WEBHOOK_CONCURRENCY);
  if (perWebhook > values.WEBHOOK_CONCURRENCY) throw invalidVariable('WEBHOOK_CONCURRENCY_PER_WEBHOOK', text, values);
  return perWebhook;
}

/** The environment the schema passed, checked further and completed: what the grouping reads. */
export type CheckedEnv = Env & { WEBHOOK_CONCURRENCY_PER_WEBHOOK: number };

export function checkEnv(values: Env, text: EnvText): CheckedEnv {
  checkUrls(values, text);
  checkCaFile(values, text);
  checkAdminPassword(values, text);
  checkEncryptionKey(values);
  checkDatabaseUrls(values);
  return {
    ...values,
    WEBHOOK_CONCURRENCY_PER_WEBHOOK: concurrencyPerWebhook(values, text),
    // Links are built as `${PUBLIC_BASE_URL}/path`.
    PUBLIC_BASE_URL: values.PUBLIC_BASE_URL.replace(/\/+$/, ''),
  };
}
