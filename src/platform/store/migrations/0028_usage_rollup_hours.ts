import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Roll-ups of closed hours, beside the closed days' (0026): a period that ends now, or starts
// within a day, then reads from its rows only the hours not closed yet and the parts of hours at
// its ends, rather than whole days (docs/platforms.md, "Roll-ups"). One row per tenant and hour
// (hours counted from 1970-01-01T00:00Z), in the same form as usage_rollups. The job keeps the
// hours of the last 35 days only. A day marked in usage_rollup_dirty_days makes its hours dirty
// too. Nothing is copied here: the job rolls up the hours after the upgrade.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table usage_rollup_hours (
    tenant_id uuid not null references tenants (id) on delete cascade,
    hour integer not null,
    high_risk bytea not null,
    violations bytea not null,
    platforms text[] not null,
    platform_users bytea[] not null,
    types text[] not null,
    type_users bytea[] not null,
    built_at timestamptz not null,
    constraint usage_rollup_hours_pk primary key (tenant_id, hour)
  )`.execute(db);
  const visible = sql`(select ugs_scope_all()) or tenant_id = any ((select ugs_scope_tenants())::uuid[])`;
  await sql`alter table usage_rollup_hours enable row level security`.execute(db);
  await sql`alter table usage_rollup_hours force row level security`.execute(db);
  await sql`create policy tenant_scope on usage_rollup_hours using (${visible}) with check (${visible})`.execute(db);
  await sql`grant select, insert, update, delete on usage_rollup_hours to ugs_app`.execute(db);
}
