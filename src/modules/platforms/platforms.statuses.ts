import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { PlatformStatus } from '../../kernel/tables/platforms.js';

/**
 * Each tenant's platform statuses, for the policy cache: only the rows set (a platform without
 * one is `unsanctioned`). Read in the caller's transaction, after the tenants' counters.
 */
export async function platformStatusesOf(
  db: Kysely<Database> | Transaction<Database>, tenantIds: readonly string[],
): Promise<Map<string, Map<string, PlatformStatus>>> {
  const statuses = new Map<string, Map<string, PlatformStatus>>(tenantIds.map((id) => [id, new Map()]));
  if (tenantIds.length === 0) return statuses;
  const rows = await db.selectFrom('platform_statuses').select(['tenant_id', 'platform_id', 'status'])
    .where('tenant_id', 'in', tenantIds).where('status', '<>', 'unsanctioned').execute();
  for (const row of rows) statuses.get(row.tenant_id)?.set(row.platform_id, row.status);
  return statuses;
}
