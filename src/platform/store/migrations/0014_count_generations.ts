import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Totals whose cost does not grow with dead rows (docs/interaction-counts.md, "Dead rows"). Until
// now a total scanned the deltas table whole and the counts' primary key, whose hot rows were
// updated every second: with vacuum off or held back (a nightly pg_dump's snapshot), each read
// visited every dead version. Now nothing a reader scans is updated or deleted in the key range it
// reads:
// - Deltas carry the writing transaction's id (`position`); the compaction records how far it
//   folded (`count_folds`), and readers take only the deltas at or past that mark, through an
//   index on `position`: folded (deleted) deltas lie below it and are never visited.
// - Counts are appended, never updated: each bucket's rows belong to a `generation`; the
//   compaction appends its sums to the bucket's current generation and, once a bucket holds as
//   many appended rows as merged ones, rewrites it as one row per key in a new generation.
//   Readers find each bucket's newest visible generation with one index probe and read its rows
//   only.
// - Alert counts follow the same scheme, and now count every alert by status, severity and
//   policy, so the alerts list's total comes from them too.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence count_generations`.execute(db);
  await sql`create table count_folds (
    family text not null check (family in ('interactions', 'alerts')),
    position xid8 not null,
    constraint count_folds_pk primary key (family, position)
  )`.execute(db);

  await sql`alter table interaction_count_deltas add column position xid8 not null default pg_current_xact_id()`.execute(db);
  await sql`create index interaction_count_deltas_position_idx on interaction_count_deltas (position)`.execute(db);
  await sql`alter table interaction_counts drop constraint interaction_counts_pk`.execute(db);
  await sql`drop index interaction_counts_rollup_idx`.execute(db);
  await sql`alter table interaction_counts add column generation bigint not null default 0,
    add column appended boolean not null default false`.execute(db);
  await sql`create index interaction_counts_current_idx on interaction_counts
    (tenant_id, granularity, bucket, generation desc, classification_type, platform_id, source, direction, risk_bucket)
    include (count, appended)`.execute(db);

  await sql`drop trigger alert_counts_on_insert on alerts`.execute(db);
  await sql`drop trigger alert_counts_on_delete on alerts`.execute(db);
  await sql`drop trigger alert_counts_on_update on alerts`.execute(db);
  await sql`drop function alert_counts_on_insert(), alert_counts_on_delete(), alert_counts_on_update(), alert_counts_rebuild(uuid)`
    .execute(db);
  await sql`drop table alert_counts, alert_count_deltas`.execute(db);
  await sql`create table alert_counts (
    tenant_id uuid not null,
    granularity text not null check (granularity in ('hour', 'day', 'month')),
    bucket timestamptz not null,
    generation bigint not null,
    status text not null,
    severity text not null,
    policy_id uuid not null,
    count bigint not null,
    appended boolean not null
  ) with (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01)`.execute(db);
  await sql`create index alert_counts_current_idx on alert_counts
    (tenant_id, granularity, bucket, generation desc, status, severity, policy_id) include (count, appended)`.execute(db);
  await sql`create table alert_count_deltas (
    tenant_id uuid not null,
    bucket timestamptz not null,
    status text not null,
    severity text not null,
    policy_id uuid not null,
    count bigint not null,
    position xid8 not null default pg_current_xact_id()
  ) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0)`
    .execute(db);
  await sql`create index alert_count_deltas_position_idx on alert_count_deltas (position)`.execute(db);

  const deltasOf = (rows: string) => sql.raw(`
    insert into alert_count_deltas (tenant_id, bucket, status, severity, policy_id, count)
    select tenant_id, date_trunc('hour', created_at, 'UTC'), status, severity, policy_id, sum(sign)
    from ${rows} r group by 1, 2, 3, 4, 5 having sum(sign) <> 0`);
  await sql`create function alert_counts_on_insert() returns trigger language plpgsql as $$
    begin ${deltasOf('(select *, 1::bigint as sign from changed)')}; return null; end $$`.execute(db);
  await sql`create function alert_counts_on_delete() returns trigger language plpgsql as $$
    begin ${deltasOf('(select *, -1::bigint as sign from changed)')}; return null; end $$`.execute(db);
  await sql`create function alert_counts_on_update() returns trigger language plpgsql as $$
    begin ${deltasOf('(select *, 1::bigint as sign from new_rows union all select *, -1::bigint from old_rows)')};
    return null; end $$`.execute(db);
  await sql`create trigger alert_counts_on_insert after insert on alerts
    referencing new table as changed for each statement execute function alert_counts_on_insert()`.execute(db);
  await sql`create trigger alert_counts_on_delete after delete on alerts
    referencing old table as changed for each statement execute function alert_counts_on_delete()`.execute(db);
  await sql`create trigger alert_counts_on_update after update on alerts
    referencing old table as old_rows new table as new_rows
    for each statement execute function alert_counts_on_update()`.execute(db);
  await sql`create function alert_counts_rebuild(p_tenant uuid) returns void language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(7769, 1);
      with wiped_counts as (
        delete from alert_counts where p_tenant is null or tenant_id = p_tenant
      ), wiped_deltas as (
        delete from alert_count_deltas where p_tenant is null or tenant_id = p_tenant
      )
      ${deltasOf('(select *, 1::bigint as sign from alerts where p_tenant is null or tenant_id = p_tenant)')};
    end $$`.execute(db);
  await sql`select alert_counts_rebuild(null)`.execute(db);

  // Every delta written so far carries this transaction's id: none is folded yet.
  await sql`insert into count_folds (family, position) values ('interactions', pg_current_xact_id()), ('alerts', pg_current_xact_id())`
    .execute(db);
}
