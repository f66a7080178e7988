import DataLoader from 'dataloader';
import { type Kysely, type Transaction, sql } from 'kysely';
import type { Store } from './store.js';
import { inTenants } from './tenant-scope.js';
import type { Database } from '../../kernel/tables/database.js';

/** A tenant's counters (migration 0006): 0 for one whose credentials or policies never changed. */
export interface TenantVersions {
  credentials: number;
  policies: number;
}

/** The counters of many tenants in one query. */
export async function readTenantVersions(
  db: Kysely<Database> | Transaction<Database>, tenantIds: readonly string[],
): Promise<Map<string, TenantVersions>> {
  const { rows } = await inTenants(tenantIds, () => sql<{ tenant_id: string; credentials: number; policies: number }>`
    select t.tenant_id, coalesce(v.credentials, 0)::int8 as credentials, coalesce(v.policies, 0)::int8 as policies
    from unnest(${tenantIds}::uuid[]) as t(tenant_id)
    left join tenant_versions v on v.tenant_id = t.tenant_id`.execute(db));
  return new Map(rows.map((row) => [row.tenant_id,
    { credentials: Number(row.credentials), policies: Number(row.policies) }]));
}

/**
 * The counters as they are now, read for all the requests of one tick together: a replica sees
 * a change committed anywhere on its next request, and 50 concurrent requests cost one query.
 * DataLoader's own cache is off, so every call reads afresh.
 */
export type TenantVersionsLoader = DataLoader<string, TenantVersions>;

export function tenantVersionsLoader(store: Store): TenantVersionsLoader {
  return new DataLoader<string, TenantVersions>(
    async (tenantIds) => {
      const versions = await readTenantVersions(store.db, tenantIds);
      return tenantIds.map((id) => versions.get(id)!);
    },
    { cache: false },
  );
}
