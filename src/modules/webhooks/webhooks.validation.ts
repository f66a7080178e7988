import type { Config } from '../../config/config.js';
import { validationError } from '../../kernel/errors.js';
import type { EventType } from '../../platform/outbox/event-types.js';
import type { WebhookFormat } from '../../kernel/vocabulary.js';
import { checkTargetHost } from '../delivery/target-guard.js';
import { SYSLOG_PROTOCOL, syslogTargetOf } from '../delivery/syslog/syslog-url.js';

/** The URL scheme each format is sent over. */
const FORMAT_SCHEMES: Record<WebhookFormat, { protocol: string; shape: string }> = {
  standard: { protocol: 'https:', shape: 'an https:// URL' },
  ocsf: { protocol: 'https:', shape: 'an https:// URL' },
  splunk_hec: { protocol: 'https:', shape: 'an https:// URL' },
  syslog: { protocol: SYSLOG_PROTOCOL, shape: 'a syslog+tls://host:port URL' },
};

/**
 * Checks a receiver URL for a format: the format's scheme, no credentials in it, and (unless
 * private targets are allowed) a host that is or resolves only to public addresses, whatever the
 * format. The same address rule runs again whenever a delivery connects, since DNS answers change.
 */
export async function checkWebhookUrl(config: Readonly<Config>, raw: string, format: WebhookFormat): Promise<string> {
  const url = checkUrlShape(raw, format);
  if (!config.webhooks.allowPrivateTargets) {
    const problem = await checkTargetHost(url.hostname);
    if (problem) throw validationError('body.url', `host ${url.hostname} ${problem}`);
  }
  return raw;
}

/**
 * The checks of a URL that need no lookup: absolute, the format's scheme, no credentials; for
 * `syslog`, exactly a host and a port.
 */
export function checkUrlShape(raw: string, format: WebhookFormat): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError('body.url', 'must be a valid absolute URL');
  }
  const scheme = FORMAT_SCHEMES[format];
  if (url.protocol !== scheme.protocol) throw validationError('body.url', `must be ${scheme.shape} for the ${format} format`);
  if (format === 'syslog') {
    const target = syslogTargetOf(url);
    if ('problem' in target) throw validationError('body.url', target.problem);
    return url;
  }
  if (url.username || url.password) {
    throw validationError('body.url', 'must not contain credentials; use auth_token or headers');
  }
  return url;
}

/** Names a custom header may not use: the service's own and the connection's. */
const RESERVED_NAMES = new Set([
  'content-type', 'authorization', 'host', 'content-length',
  'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'expect',
  'proxy-authorization', 'proxy-connection',
]);
const RESERVED_PREFIXES = ['x-service-', 'webhook-'];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

export function checkCustomHeaders(headers: Record<string, string>): Record<string, string> {
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const path = `body.headers.${name}`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) throw validationError(path, 'is not a valid header name');
    if (RESERVED_NAMES.has(lower) || RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
      throw validationError(path, 'is reserved: the service sets it on every delivery');
    }
    if (seen.has(lower)) throw validationError(path, 'is given twice (header names are case-insensitive)');
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw validationError(path, 'must be printable ASCII without line breaks');
    }
    seen.add(lower);
  }
  return headers;
}

export function checkAuthToken(token: string): string {
  if (!/^[\x21-\x7e]*$/.test(token)) throw validationError('body.auth_token', 'must be printable ASCII without spaces');
  return token;
}

/** Formats whose receiver refuses every request without a token: a webhook of one always has one. */
const TOKEN_REQUIRED: Partial<Record<WebhookFormat, string>> = {
  splunk_hec: 'is required for the splunk_hec format: the HEC token, sent as `Authorization: Splunk <token>`',
};

/** A webhook's format and token as they will be stored: a format that needs a token gets one. */
export function checkTokenForFormat(format: WebhookFormat, token: string): void {
  const required = TOKEN_REQUIRED[format];
  if (required && token === '') throw validationError('body.auth_token', required);
}

/** The subscribed types, each once, in the order given. */
export function uniqueEvents(events: readonly EventType[]): EventType[] {
  return [...new Set(events)];
}
