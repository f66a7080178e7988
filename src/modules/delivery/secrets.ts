import { decryptValue, encryptValue, type TenantKeys } from '../../platform/crypto/envelope.js';
import { rememberNewest } from '../../kernel/newest-first.js';

/** What a webhook keeps to sign and authenticate its deliveries: never stored in clear. */
export interface WebhookSecrets {
  headers: Record<string, string>;
  auth_token: string;
  signing_secret: string;
  previous_signing_secret: string | null;
}

/** The same secrets as stored: each value encrypted (the header names stay readable), `headers` as JSON. */
export interface SealedWebhookSecrets {
  headers: string;
  auth_token: string;
  signing_secret: string;
  previous_signing_secret: string | null;
  secrets_sealed: true;
}

// Both signing secrets share a purpose: a rotation moves the current one into `previous` as it is.
const SIGNING_SECRET = 'webhook.signing_secret';
const AUTH_TOKEN = 'webhook.auth_token';
// The header's name is part of the purpose: a value moved under another name does not open.
const headerPurpose = (name: string) => `webhook.header.${name.toLowerCase()}`;

/** An empty token (none) stays empty: reads tell whether a webhook has one. */
export function sealWebhookSecrets(keys: TenantKeys, secrets: WebhookSecrets): SealedWebhookSecrets {
  const headers = Object.fromEntries(Object.entries(secrets.headers)
    .map(([name, value]) => [name, encryptValue(keys, headerPurpose(name), value)]));
  return {
    headers: JSON.stringify(headers),
    auth_token: secrets.auth_token === '' ? '' : encryptValue(keys, AUTH_TOKEN, secrets.auth_token),
    signing_secret: encryptValue(keys, SIGNING_SECRET, secrets.signing_secret),
    previous_signing_secret: secrets.previous_signing_secret === null ? null
      : encryptValue(keys, SIGNING_SECRET, secrets.previous_signing_secret),
    secrets_sealed: true,
  };
}

/** A stored webhook's secrets in clear; a row of an earlier release, not sealed yet, is returned as it is. */
export function openWebhookSecrets<T extends WebhookSecrets & { secrets_sealed: boolean }>(keys: TenantKeys, row: T): T {
  if (!row.secrets_sealed) return row;
  return {
    ...row,
    headers: Object.fromEntries(Object.entries(row.headers)
      .map(([name, value]) => [name, decryptValue(keys, headerPurpose(name), value)])),
    auth_token: row.auth_token === '' ? '' : decryptValue(keys, AUTH_TOKEN, row.auth_token),
    signing_secret: decryptValue(keys, SIGNING_SECRET, row.signing_secret),
    previous_signing_secret: row.previous_signing_secret === null ? null
      : decryptValue(keys, SIGNING_SECRET, row.previous_signing_secret),
  };
}

/**
 * The secrets of the webhooks a worker delivers to, opened once per stored version rather than
 * once per attempt: decrypting them for every delivery was 5 % of a worker's CPU while draining
 * a queue. Keyed by the sealed texts themselves, so a rotated secret or a changed header (a new
 * text, under a fresh IV) is opened anew; held only in the worker's memory, as each attempt's are.
 */
export class OpenedSecrets {
  private readonly opened = new Map<string, WebhookSecrets>();

  constructor(private readonly maxWebhooks = 1000) {}

  open<T extends WebhookSecrets & { secrets_sealed: boolean }>(keys: TenantKeys, row: T): T {
    if (!row.secrets_sealed) return row;
    // The tenant too: a text moved to another tenant must fail to open there, as it does uncached.
    const key = JSON.stringify([keys.tenantId, row.signing_secret, row.previous_signing_secret, row.auth_token, row.headers]);
    let secrets = this.opened.get(key);
    if (!secrets) {
      const { headers, auth_token, signing_secret, previous_signing_secret } = openWebhookSecrets(keys, row);
      secrets = { headers, auth_token, signing_secret, previous_signing_secret };
      rememberNewest(this.opened, key, secrets, this.maxWebhooks);
    }
    return { ...row, ...secrets };
  }
}
