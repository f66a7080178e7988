import type { Deps } from './platform/deps.js';
import { tenantVersionsLoader } from './platform/store/tenant-versions.js';
import { CredentialCache } from './modules/auth/credential-cache.js';
import type { RateLimitSettings } from './modules/auth/rate-limit/rate-limit.js';
import { LocalWindows } from './modules/auth/rate-limit/local-windows.js';
import { SharedWindows } from './modules/auth/rate-limit/shared-windows.js';
import { IngestPipeline } from './modules/interactions/ingest/pipeline.js';
import { PolicyCache } from './modules/policies/policies.cache.js';

/**
 * The services that live as long as one application (each replica, each test app has its own):
 * caches, the ingest queue and the rate limit's counter. Built here and nowhere else, then passed
 * to the routes that use them.
 */
export interface Services {
  /** Bearer secrets already resolved, checked against the tenants' credentials counters. */
  credentials: CredentialCache;
  /**
   * Requests per minute per credential, counted in PostgreSQL so that the replicas share one limit;
   * on the embedded store (one process) in memory.
   */
  rateLimit: RateLimitSettings;
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
    rateLimit: {
      perMinute: deps.config.server.rateLimitPerMinute,
      windows: deps.store.kind === 'postgres' ? new SharedWindows(deps.store.db) : new LocalWindows(),
    },
    policies,
    ingest: new IngestPipeline(deps, policies),
  };
}
