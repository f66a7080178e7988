import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { ScimAttributes, ScimUserRow } from './scim.schemas.js';
import type { Paging, UserFilter } from './scim.query.js';

type Db = Kysely<Database> | Transaction<Database>;

const NO_ATTRIBUTES: ScimAttributes = { external_id: null, name: null };

function usersWithAttributes(db: Db, tenantId: string) {
  return db
    .selectFrom('users as u')
    .leftJoin('scim_users as s', (join) => join.onRef('s.tenant_id', '=', 'u.tenant_id').onRef('s.user_id', '=', 'u.id'))
    .where('u.tenant_id', '=', tenantId);
}

export async function findScimUser(db: Db, tenantId: string, userId: string): Promise<ScimUserRow | undefined> {
  return usersWithAttributes(db, tenantId).selectAll('u').select(['s.external_id', 's.name'])
    .where('u.id', '=', userId).executeTakeFirst();
}

/** The page of users the filter matches, oldest first, and how many match in all. */
export async function listScimUsers(db: Db, tenantId: string, filter: UserFilter | undefined, paging: Paging) {
  const matching = filter ? usersWithAttributes(db, tenantId).where((eb) => matches(eb, filter)) : usersWithAttributes(db, tenantId);
  const [rows, count] = await Promise.all([
    paging.count === 0 ? [] : matching.selectAll('u').select(['s.external_id', 's.name'])
      .orderBy('u.created_at').orderBy('u.id').offset(paging.startIndex - 1).limit(paging.count).execute(),
    matching.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as ScimUserRow[], total: Number(count.total) };
}

function matches(eb: ExpressionBuilder<Database & { u: Database['users']; s: Database['scim_users'] }, 'u' | 's'>, filter: UserFilter) {
  return eb.or(filter.map((group) => eb.and(group.map(({ attribute, value }) => attribute === 'userName'
    // userName is case-insensitive, as emails are (the unique index on lower(email) serves it).
    ? eb(eb.fn('lower', ['u.email']), '=', value.toLowerCase())
    : eb('s.external_id', '=', value)))));
}

/** The user's SCIM attributes; call with the user locked, so they cannot change meanwhile. */
export async function scimAttributes(tx: Transaction<Database>, tenantId: string, userId: string): Promise<ScimAttributes> {
  const row = await tx.selectFrom('scim_users').select(['external_id', 'name'])
    .where('tenant_id', '=', tenantId).where('user_id', '=', userId).executeTakeFirst();
  return row ?? NO_ATTRIBUTES;
}

export async function saveScimAttributes(tx: Transaction<Database>, tenantId: string, userId: string, attributes: ScimAttributes) {
  const values = { external_id: attributes.external_id, name: attributes.name === null ? null : JSON.stringify(attributes.name) };
  await tx.insertInto('scim_users').values({ tenant_id: tenantId, user_id: userId, ...values })
    .onConflict((conflict) => conflict.columns(['tenant_id', 'user_id']).doUpdateSet(values))
    .execute();
}
