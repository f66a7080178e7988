import type { Kysely, Transaction } from 'kysely';
import type { TenantVersions } from '../../platform/store/tenant-versions.js';
import type { Database } from '../../kernel/tables/database.js';
import type { PlatformStatus } from '../../kernel/tables/platforms.js';
import { platformStatusesOf } from '../platforms/platforms.statuses.js';
import type { PolicyRule } from './policies.evaluate.js';
import { loadEnabledPolicies } from './policies.repo.js';
import { rememberNewest } from '../../kernel/newest-first.js';

const MAX_TENANTS = 10_000;

/** What judges a tenant's interactions: its enabled policies and its platform statuses (those set to other than unsanctioned). */
export interface TenantRules {
  policies: PolicyRule[];
  platformStatuses: ReadonlyMap<string, PlatformStatus>;
}

/**
 * The enabled policies and platform statuses of each tenant, kept in memory between creates.
 * Every read is given the tenants' `policies` counters (migration 0006), read by the group commit
 * in its transaction: any change of a policy or of a platform status bumps the counter by trigger
 * (migrations 0006, 0021), so a change committed by this process or by another replica on the
 * same PostgreSQL is seen by the very next create.
 */
export class PolicyCache {
  private readonly entries = new Map<string, { version: number; rules: TenantRules }>();

  /** `versions`: the tenants' counters, read by the caller in the same transaction. */
  async enabledPolicies(
    db: Kysely<Database> | Transaction<Database>, versions: ReadonlyMap<string, TenantVersions>,
  ): Promise<Map<string, TenantRules>> {
    const tenantIds = [...versions.keys()];
    const stale = tenantIds.filter((id) => this.entries.get(id)?.version !== versions.get(id)!.policies);
    if (stale.length > 0) {
      // Loaded after the versions were read, so these are at least as new as those versions.
      const rows = await loadEnabledPolicies(db, stale);
      const statuses = await platformStatusesOf(db, stale);
      const loaded = new Map<string, PolicyRule[]>(stale.map((id) => [id, []]));
      for (const row of rows) {
        loaded.get(row.tenant_id)!.push({
          id: row.id, name: row.name, action: row.action, severity: row.severity, enabled: row.enabled, conditions: row.conditions,
          message: row.message ?? null,
        });
      }
      for (const [tenantId, policies] of loaded) {
        this.remember(tenantId, versions.get(tenantId)!.policies, { policies, platformStatuses: statuses.get(tenantId)! });
      }
    }
    return new Map(tenantIds.map((id) => [id, this.entries.get(id)!.rules]));
  }

  private remember(tenantId: string, version: number, rules: TenantRules): void {
    rememberNewest(this.entries, tenantId, { version, rules }, MAX_TENANTS);
  }
}
