import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// SCIM provisioning: what an identity provider keeps on a user beyond the users table (its own id
// for the user, `externalId`, and the name's parts). The row goes with its user (cascade). Under
// row-level security like every tenant table (0017): enabled, forced, the same policy.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table scim_users (
    tenant_id uuid not null,
    user_id uuid not null,
    external_id text,
    name jsonb,
    constraint scim_users_pk primary key (tenant_id, user_id),
    constraint scim_users_user_fk foreign key (tenant_id, user_id) references users (tenant_id, id) on delete cascade
  )`.execute(db);
  // Identity providers look users up by it (`filter=externalId eq "..."`).
  await sql`create index scim_users_external_id_idx on scim_users (tenant_id, external_id)`.execute(db);

  const visible = sql`(select ugs_scope_all()) or tenant_id = any ((select ugs_scope_tenants())::uuid[])`;
  await sql`alter table scim_users enable row level security`.execute(db);
  await sql`alter table scim_users force row level security`.execute(db);
  await sql`create policy tenant_scope on scim_users using (${visible}) with check (${visible})`.execute(db);
  await sql`grant select, insert, update, delete on scim_users to ugs_app`.execute(db);
}
