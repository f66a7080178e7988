import { type Kysely, type Transaction, type Updateable, sql } from 'kysely';
import type { Database, NewUser, UserRow, UsersTable } from '../../kernel/tables/database.js';
import { type Keyset, KeysetPage, sortKey } from '../../kernel/paging/cursor.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import type { UserListFilters } from './users.schemas.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function findUser(db: Db, tenantId: string, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('id', '=', userId).executeTakeFirst();
}

export async function emailInUse(db: Db, tenantId: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return row !== undefined;
}

export interface LockedUsers {
  target: UserRow | undefined;
  /** Ids of the tenant's active admins, as of the lock. */
  activeAdminIds: string[];
}

/**
 * Locks the target row and every active admin of the tenant in one statement, in id order, so
 * concurrent changes queue behind each other instead of deadlocking. Under READ COMMITTED a
 * waiting transaction re-checks `role`/`status` of the rows it waited for, so two admins
 * demoting each other at once cannot both see the other one still counted.
 */
export async function lockForChange(tx: Transaction<Database>, tenantId: string, userId: string): Promise<LockedUsers> {
  const rows = await tx
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('id', '=', userId), eb.and([eb('role', '=', 'admin'), eb('status', '=', 'active')])]))
    .orderBy('id')
    .forUpdate()
    .execute();
  return {
    target: rows.find((row) => row.id === userId),
    activeAdminIds: rows.filter((row) => row.role === 'admin' && row.status === 'active').map((row) => row.id),
  };
}

/** Locks one user row for the rest of the transaction. */
export async function lockUser(tx: Transaction<Database>, tenantId: string, userId: string): Promise<UserRow | undefined> {
  return tx
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
}

export async function insertUser(db: Db, user: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(
  db: Db,
  tenantId: string,
  userId: string,
  changes: Updateable<UsersTable>,
): Promise<UserRow> {
  return db
    .updateTable('users')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes the user and their sessions; invitations go with the user (foreign key cascade). */
export async function deleteUser(db: Db, tenantId: string, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
  await db.deleteFrom('users').where('tenant_id', '=', tenantId).where('id', '=', userId).execute();
}

// Emails are case-insensitive everywhere, so they sort that way too; they are unique per tenant
// (users_tenant_email_uq on (tenant_id, lower(email)) serves the sort and the cursor).
const BY_EMAIL = [sortKey.text(sql`lower(email)`)];
const BY_CREATION = [sortKey.instant('created_at'), sortKey.uuid('id')];
const USER_ORDERS: Record<NonNullable<UserListFilters['sort']>, Keyset> = {
  created_at: { keys: BY_CREATION, direction: 'asc' },
  '-created_at': { keys: BY_CREATION, direction: 'desc' },
  email: { keys: BY_EMAIL, direction: 'asc' },
  '-email': { keys: BY_EMAIL, direction: 'desc' },
};

export async function listUsers(db: Db, tenantId: string, filters: UserListFilters, request: PageRequest) {
  let base = db.selectFrom('users').where('tenant_id', '=', tenantId);
  if (filters.role) base = base.where('role', '=', filters.role);
  if (filters.status) base = base.where('status', '=', filters.status);
  const sort = filters.sort ?? 'created_at';
  const paging = KeysetPage.open(request, USER_ORDERS[sort], { list: 'users', sort, role: filters.role, status: filters.status });
  const [rows, count] = await Promise.all([
    paging.apply(base.selectAll()).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { ...paging.close(rows), total: Number(count.total) };
}

export async function tenantName(db: Db, tenantId: string): Promise<string> {
  const row = await db.selectFrom('tenants').select('name').where('id', '=', tenantId).executeTakeFirst();
  return row?.name ?? 'your organization';
}
