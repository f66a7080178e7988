import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Database, NewUser, UserRow, UsersTable } from '../../db/types.js';
import type { Page } from '../../lib/pagination.js';
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

export async function listUsers(
  db: Db,
  tenantId: string,
  filters: UserListFilters,
  page: Page,
): Promise<{ rows: UserRow[]; total: number }> {
  let base = db.selectFrom('users').where('tenant_id', '=', tenantId);
  if (filters.role) base = base.where('role', '=', filters.role);
  if (filters.status) base = base.where('status', '=', filters.status);

  const sort = filters.sort ?? 'created_at';
  const direction = sort.startsWith('-') ? 'desc' : 'asc';
  let rows = base.selectAll();
  // Emails are case-insensitive everywhere, so they sort that way too; they are unique per tenant.
  rows = sort.endsWith('email')
    ? rows.orderBy((eb) => eb.fn('lower', ['email']), direction)
    : rows.orderBy('created_at', direction).orderBy('id', direction);
  const [items, count] = await Promise.all([
    rows.limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: Number(count.total) };
}

export async function tenantName(db: Db, tenantId: string): Promise<string> {
  const row = await db.selectFrom('tenants').select('name').where('id', '=', tenantId).executeTakeFirst();
  return row?.name ?? 'your organization';
}
