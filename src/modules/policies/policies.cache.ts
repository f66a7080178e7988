import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Deps } from '../../deps.js';
import type { PolicyRule } from './policies.evaluate.js';
import { loadEnabledPolicies, readPolicyVersion } from './policies.repo.js';

const MAX_TENANTS = 10_000;

/**
 * The enabled policies of each tenant, kept in memory between creates. Every read first reads
 * the tenant's `policy_versions` counter (one primary-key lookup, in the caller's transaction):
 * any policy change bumps it in its own transaction, so a change committed by this process or
 * by another replica on the same PostgreSQL is seen by the very next create.
 */
export class PolicyCache {
  private readonly entries = new Map<string, { version: number; policies: PolicyRule[] }>();

  async enabledPolicies(db: Kysely<Database> | Transaction<Database>, tenantId: string): Promise<PolicyRule[]> {
    const version = await readPolicyVersion(db, tenantId);
    const cached = this.entries.get(tenantId);
    if (cached && cached.version === version) return cached.policies;
    // Loaded after the version was read, so these are at least as new as `version`.
    const policies = (await loadEnabledPolicies(db, tenantId)).map((row) => ({
      id: row.id,
      name: row.name,
      action: row.action,
      severity: row.severity,
      enabled: row.enabled,
      conditions: row.conditions,
    }));
    this.entries.delete(tenantId);
    this.entries.set(tenantId, { version, policies });
    if (this.entries.size > MAX_TENANTS) this.entries.delete(this.entries.keys().next().value!);
    return policies;
  }
}

const caches = new WeakMap<Deps, PolicyCache>();

/** One cache per application instance (each replica, each test app has its own). */
export function policyCacheFor(deps: Deps): PolicyCache {
  let cache = caches.get(deps);
  if (!cache) {
    cache = new PolicyCache();
    caches.set(deps, cache);
  }
  return cache;
}
