import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// The first sighting of each AI platform per tenant: the group commit that stores a tenant's first
// interaction on a platform inserts its row (`on conflict do nothing returning`, in its own
// transaction), and only the transaction that inserted it emits `platform.discovered`, so the
// event goes out once per tenant and platform whatever the concurrency and the number of
// replicas. Nothing is copied from `interactions` here (no backfill in a migration): a platform
// the tenant used before this release gets its row at its next interaction, with `discovered`
// false and no event (docs/platforms.md, "Discovery").
// Under row-level security like every tenant table (0017).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table platform_sightings (
    tenant_id uuid not null references tenants (id) on delete cascade,
    platform_id text not null,
    first_seen timestamptz not null,
    user_id uuid,
    discovered boolean not null,
    constraint platform_sightings_pk primary key (tenant_id, platform_id)
  )`.execute(db);

  const visible = sql`(select ugs_scope_all()) or tenant_id = any ((select ugs_scope_tenants())::uuid[])`;
  await sql`alter table platform_sightings enable row level security`.execute(db);
  await sql`alter table platform_sightings force row level security`.execute(db);
  await sql`create policy tenant_scope on platform_sightings using (${visible}) with check (${visible})`.execute(db);
  await sql`grant select, insert, update, delete on platform_sightings to ugs_app`.execute(db);
}
