import type { Deps } from './platform/deps.js';
import { tenantVersionsLoader } from './platform/store/tenant-versions.js';
import { CredentialCache } from './modules/auth/credential-cache.js';
import { RateLimiter } from './modules/auth/rate-limiter.js';
import { IngestPipeline } from './modules/interactions/ingest/pipeline.js';
import { PolicyCache } from './modules/policies/policies.cache.js';

/**
 * The in-memory services that live as long as one application (each replica, each test app has
 * its own): caches, the ingest queue and the rate limiter. Built here and nowhere else, then
 * passed to the routes that use them.
 */
export interface Services {
  /** Bearer secrets already resolved, checked against the tenants' credentials counters. */
  credentials: CredentialCache;
  /** Requests per minute per credential. */
  rateLimiter: RateLimiter;
  /** The tenants' enabled policies, checked against their policies counters. */
  policies: PolicyCache;
  /** The group commit of interaction creates. */
  ingest: IngestPipeline;
}

export function buildServices(deps: Deps): Services {
  const tenantVersions = tenantVersionsLoader(deps.store);
  const policies = new PolicyCache();
  return {
    credentials: new CredentialCache(deps, tenantVersions),
    rateLimiter: new RateLimiter(deps.config.server.rateLimitPerMinute),
    policies,
    ingest: new IngestPipeline(deps, policies),
  };
}
