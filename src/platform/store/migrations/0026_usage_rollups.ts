import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Closed-day roll-ups of who used what, for the distinct figures of `GET /platforms/usage` and
// `GET /people/risk` over long periods (docs/platforms.md, "Roll-ups"). A background job writes
// them from the rows once a UTC day has ended; nothing is added to ingest. Nothing is copied here
// (no backfill in a migration): the job rolls up the past days after the upgrade, and until it
// has, readers count those days from the rows as before.
//
// - usage_rollup_users: each tenant's user ids numbered densely (0, 1, 2, ...) by the job, so a
//   set of users is a bitmap. Erasure sets the id to null; the number is never given again.
// - usage_rollups: one row per tenant and aligned block of 2^level days from start_day (level 0:
//   one day), with per user number the high-risk interactions and the interactions with an alert
//   (uint32 little-endian each), and per platform and per classification type the bitmap of the
//   users who had one.
// - usage_rollup_dirty_days: days whose rows changed after they were rolled up (a delete, an
//   update). Readers count a dirty day from its rows until the job has rolled it up again; the
//   triggers below mark it in the transaction of the change, so the figures are exact at every
//   moment. `marks` counts the changes: the job clears a day only if nobody marked it since it read it.
// Under row-level security like every tenant table (0017).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table usage_rollup_users (
    tenant_id uuid not null references tenants (id) on delete cascade,
    n integer not null,
    user_id uuid,
    constraint usage_rollup_users_pk primary key (tenant_id, n)
  )`.execute(db);
  await sql`create unique index usage_rollup_users_user_idx on usage_rollup_users (tenant_id, user_id) include (n)`.execute(db);

  await sql`create table usage_rollups (
    tenant_id uuid not null references tenants (id) on delete cascade,
    level smallint not null check (level >= 0 and level <= 16),
    start_day date not null,
    high_risk bytea not null,
    violations bytea not null,
    platforms text[] not null,
    platform_users bytea[] not null,
    types text[] not null,
    type_users bytea[] not null,
    built_at timestamptz not null,
    constraint usage_rollups_pk primary key (tenant_id, level, start_day)
  )`.execute(db);

  await sql`create table usage_rollup_dirty_days (
    tenant_id uuid not null references tenants (id) on delete cascade,
    day date not null,
    marks bigint not null,
    constraint usage_rollup_dirty_days_pk primary key (tenant_id, day)
  )`.execute(db);

  const visible = sql`(select ugs_scope_all()) or tenant_id = any ((select ugs_scope_tenants())::uuid[])`;
  for (const table of ['usage_rollup_users', 'usage_rollups', 'usage_rollup_dirty_days']) {
    await sql`alter table ${sql.table(table)} enable row level security`.execute(db);
    await sql`alter table ${sql.table(table)} force row level security`.execute(db);
    await sql`create policy tenant_scope on ${sql.table(table)} using (${visible}) with check (${visible})`.execute(db);
    await sql`grant select, insert, update, delete on ${sql.table(table)} to ugs_app`.execute(db);
  }

  // Marks the UTC days of the changed rows, in key order (two deleting transactions lock the same
  // marks in the same order). A day that is not rolled up yet is marked too: the job may be rolling
  // it up from a snapshot that does not see this change.
  const mark = (days: string) => sql.raw(`
    insert into usage_rollup_dirty_days (tenant_id, day, marks)
    select tenant_id, day, 1 from (${days}) d group by 1, 2 order by 1, 2
    on conflict (tenant_id, day) do update set marks = usage_rollup_dirty_days.marks + 1`);
  const dayOf = (column: string) => `(${column} at time zone 'UTC')::date`;
  await sql`create function usage_rollups_on_delete() returns trigger language plpgsql as $$
    begin ${mark(`select tenant_id, ${dayOf('timestamp')} as day from changed`)}; return null; end $$`.execute(db);
  // An update matters only when it moves a figure: the sealing of legacy values rewrites
  // classifications' values, never their types.
  await sql`create function usage_rollups_on_update() returns trigger language plpgsql as $$
    begin ${mark(`select o.tenant_id, ${dayOf(`x.t`)} as day
      from old_rows o join new_rows n on n.tenant_id = o.tenant_id and n.id = o.id
      cross join lateral (values (o.timestamp), (n.timestamp)) as x(t)
      where (o.timestamp, o.platform_id, o.risk_score, o.user_id) is distinct from (n.timestamp, n.platform_id, n.risk_score, n.user_id)
        or array(select distinct c->>'type' from jsonb_array_elements(o.classifications) c order by 1)
          is distinct from array(select distinct c->>'type' from jsonb_array_elements(n.classifications) c order by 1)`)};
    return null; end $$`.execute(db);
  await sql`create function usage_rollups_on_alert_delete() returns trigger language plpgsql as $$
    begin ${mark(`select tenant_id, ${dayOf('created_at')} as day from changed`)}; return null; end $$`.execute(db);
  await sql`create trigger usage_rollups_on_delete after delete on interactions
    referencing old table as changed for each statement execute function usage_rollups_on_delete()`.execute(db);
  await sql`create trigger usage_rollups_on_update after update on interactions
    referencing old table as old_rows new table as new_rows
    for each statement execute function usage_rollups_on_update()`.execute(db);
  await sql`create trigger usage_rollups_on_alert_delete after delete on alerts
    referencing old table as changed for each statement execute function usage_rollups_on_alert_delete()`.execute(db);
}
