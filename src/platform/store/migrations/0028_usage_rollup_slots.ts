import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Roll-ups of closed slots of time, beside the closed days' (0026): hours of the last 35 days, and
// 5-minute slots of the hours not closed yet. A period that ends now, or starts within a day, then
// reads from its rows only the last minutes and the parts of slots at its ends, rather than whole
// days (docs/platforms.md, "Roll-ups"). One row per tenant, slot length (`minutes`: 60 or 5) and
// slot (counted from 1970-01-01T00:00Z in slots of that length), in the same form as
// usage_rollups. A day marked in usage_rollup_dirty_days makes its slots dirty too. Nothing is
// copied here: the job rolls up the slots after the upgrade.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table usage_rollup_slots (
    tenant_id uuid not null references tenants (id) on delete cascade,
    minutes smallint not null check (minutes in (5, 60)),
    slot integer not null,
    high_risk bytea not null,
    violations bytea not null,
    platforms text[] not null,
    platform_users bytea[] not null,
    types text[] not null,
    type_users bytea[] not null,
    built_at timestamptz not null,
    constraint usage_rollup_slots_pk primary key (tenant_id, minutes, slot)
  )`.execute(db);
  const visible = sql`(select ugs_scope_all()) or tenant_id = any ((select ugs_scope_tenants())::uuid[])`;
  await sql`alter table usage_rollup_slots enable row level security`.execute(db);
  await sql`alter table usage_rollup_slots force row level security`.execute(db);
  await sql`create policy tenant_scope on usage_rollup_slots using (${visible}) with check (${visible})`.execute(db);
  await sql`grant select, insert, update, delete on usage_rollup_slots to ugs_app`.execute(db);
}
