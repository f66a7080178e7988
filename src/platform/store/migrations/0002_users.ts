import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // List filters, each with the default sort (created_at, id) behind it.
  await db.schema.createIndex('users_tenant_role_idx').on('users').columns(['tenant_id', 'role', 'created_at', 'id']).execute();
  await db.schema.createIndex('users_tenant_status_idx').on('users').columns(['tenant_id', 'status', 'created_at', 'id']).execute();
  // The email sort orders by lower(email): the unique index users_tenant_email_uq (tenant_id, lower(email)) serves it.
  // The last-admin check locks the tenant's active admins.
  await sql`create index users_tenant_active_admins_idx on users (tenant_id, id) where role = 'admin' and status = 'active'`.execute(db);

  // One-time invitation links: only the SHA-256 of the token is kept. Gone when the user accepts or is deleted.
  await db.schema
    .createTable('invitations')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('invitations_pk', ['tenant_id', 'id'])
    .addForeignKeyConstraint('invitations_user_fk', ['tenant_id', 'user_id'], 'users', ['tenant_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('invitations_user_idx').on('invitations').columns(['tenant_id', 'user_id']).execute();
}
