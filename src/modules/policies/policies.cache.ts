import type { Kysely, Transaction } from 'kysely';
import type { TenantVersions } from '../../platform/store/tenant-versions.js';
import type { Database } from '../../kernel/tables/database.js';
import type { PolicyRule } from './policies.evaluate.js';
import { loadEnabledPolicies } from './policies.repo.js';

const MAX_TENANTS = 10_000;

/**
 * The enabled policies of each tenant, kept in memory between creates. Every read is given the
 * tenants' `policies` counters (migration 0006), read by the group commit in its transaction: any
 * policy change bumps the counter by trigger, so a change committed by this process or by another
 * replica on the same PostgreSQL is seen by the very next create.
 */
export class PolicyCache {
  private readonly entries = new Map<string, { version: number; policies: PolicyRule[] }>();

  /** `versions`: the tenants' counters, read by the caller in the same transaction. */
  async enabledPolicies(
    db: Kysely<Database> | Transaction<Database>, versions: ReadonlyMap<string, TenantVersions>,
  ): Promise<Map<string, PolicyRule[]>> {
    const tenantIds = [...versions.keys()];
    const stale = tenantIds.filter((id) => this.entries.get(id)?.version !== versions.get(id)!.policies);
    if (stale.length > 0) {
      // Loaded after the versions were read, so these are at least as new as those versions.
      const loaded = new Map<string, PolicyRule[]>(stale.map((id) => [id, []]));
      for (const row of await loadEnabledPolicies(db, stale)) {
        loaded.get(row.tenant_id)!.push({
          id: row.id, name: row.name, action: row.action, severity: row.severity, enabled: row.enabled, conditions: row.conditions,
        });
      }
      for (const [tenantId, policies] of loaded) this.remember(tenantId, versions.get(tenantId)!.policies, policies);
    }
    return new Map(tenantIds.map((id) => [id, this.entries.get(id)!.policies]));
  }

  private remember(tenantId: string, version: number, policies: PolicyRule[]): void {
    this.entries.delete(tenantId);
    this.entries.set(tenantId, { version, policies });
    if (this.entries.size > MAX_TENANTS) this.entries.delete(this.entries.keys().next().value!);
  }
}

