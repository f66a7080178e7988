import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { type Keyset, KeysetPage, sortKey } from '../../kernel/paging/cursor.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import type { PoliciesTable } from '../../kernel/tables/interactions.js';
import type { PolicyListFilters } from './policies.schemas.js';

type Db = Kysely<Database> | Transaction<Database>;
export type PolicyRow = Selectable<PoliciesTable>;

export async function insertPolicy(tx: Db, row: Insertable<PoliciesTable>): Promise<PolicyRow> {
  return tx.insertInto('policies').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findPolicy(db: Db, tenantId: string, id: string): Promise<PolicyRow | undefined> {
  return db.selectFrom('policies').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** The policy, locked until the end of the transaction so concurrent changes apply one after the other. */
export async function findPolicyForUpdate(tx: Transaction<Database>, tenantId: string, id: string) {
  return tx.selectFrom('policies').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id)
    .forUpdate().executeTakeFirst();
}

export async function updatePolicyRow(
  tx: Db, tenantId: string, id: string, changes: Updateable<PoliciesTable>,
): Promise<PolicyRow> {
  return tx.updateTable('policies').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id)
    .returningAll().executeTakeFirstOrThrow();
}

export async function deletePolicyRow(tx: Db, tenantId: string, id: string): Promise<PolicyRow | undefined> {
  return tx.deleteFrom('policies').where('tenant_id', '=', tenantId).where('id', '=', id).returningAll().executeTakeFirst();
}

const OLDEST_FIRST: Keyset = { keys: [sortKey.instant('created_at'), sortKey.uuid('id')], direction: 'asc' };

export async function listPolicyRows(db: Db, tenantId: string, filters: PolicyListFilters, request: PageRequest) {
  const base = db.selectFrom('policies').where((eb) => {
    const conditions = [eb('tenant_id', '=', tenantId)];
    if (filters.enabled !== undefined) conditions.push(eb('enabled', '=', filters.enabled));
    if (filters.action) conditions.push(eb('action', '=', filters.action));
    return eb.and(conditions);
  });
  const paging = KeysetPage.open(request, OLDEST_FIRST, { list: 'policies', enabled: filters.enabled, action: filters.action });
  const [rows, count] = await Promise.all([
    paging.apply(base.selectAll()).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { ...paging.close(rows), total: Number(count.total) };
}

/** The enabled policies of these tenants, oldest first: the order of decisions with the same action. */
export async function loadEnabledPolicies(db: Db, tenantIds: readonly string[]): Promise<PolicyRow[]> {
  return db.selectFrom('policies').selectAll().where('tenant_id', 'in', tenantIds).where('enabled', '=', true)
    .orderBy('created_at').orderBy('id').execute();
}
