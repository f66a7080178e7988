import * as oidc from 'openid-client';

/** How long a provider's discovery document (and the key set read through it) is reused. */
const METADATA_TTL_MS = 5 * 60 * 1000;
const REQUEST_TIMEOUT_SECONDS = 10;

export interface ProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

interface Cached {
  config: oidc.Configuration;
  fetchedAt: number;
}

/**
 * Relying-party configurations, one per tenant's provider setting, from the issuer's discovery
 * document. Kept five minutes: openid-client keeps the provider's key set with it, reads it again
 * after five minutes, or at once when a token names a key it lacks and the set is a minute old.
 * A configuration that failed to check a token's signature is dropped, so the next sign-in starts
 * from a fresh discovery document and key set.
 */
export class ProviderConfigurations {
  private readonly cache = new Map<string, Cached>();

  async get(client: ProviderClient, now: number): Promise<oidc.Configuration> {
    const key = cacheKey(client);
    const cached = this.cache.get(key);
    if (cached && now - cached.fetchedAt < METADATA_TTL_MS) return cached.config;
    const config = await discover(client);
    this.cache.set(key, { config, fetchedAt: now });
    return config;
  }

  forget(client: ProviderClient): void {
    this.cache.delete(cacheKey(client));
  }
}

/** Reads the discovery document; ID tokens are checked against the provider's keys (not only TLS). */
export async function discover(client: ProviderClient): Promise<oidc.Configuration> {
  const config = await oidc.discovery(
    new URL(client.issuer), client.clientId, { client_secret: client.clientSecret }, oidc.ClientSecretPost(client.clientSecret),
    { timeout: REQUEST_TIMEOUT_SECONDS },
  );
  oidc.enableNonRepudiationChecks(config);
  config.timeout = REQUEST_TIMEOUT_SECONDS;
  return config;
}

function cacheKey(client: ProviderClient): string {
  return JSON.stringify([client.issuer, client.clientId, client.clientSecret]);
}
