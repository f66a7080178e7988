import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// The stats' open alerts by severity without counting rows, as 0007 does for interactions
// (docs/interaction-counts.md, "Open alerts"):
// - alert_counts: per tenant, the number of open alerts created in each hour, day and month
//   (`granularity`), by severity.
// - alert_count_deltas: what each statement on `alerts` added or removed (a resolve is -1), per
//   hour, written by statement triggers in the writer's transaction and moved into alert_counts
//   by the compaction worker. A sum reads both in one snapshot.
export async function up(db: Kysely<any>): Promise<void> {
  // As interactions_timestamp_ms: whole hours inside `created_at <= end` are then decidable. The
  // service writes JS dates (milliseconds); a sub-millisecond date written by hand is truncated.
  await sql`update alerts set created_at = date_trunc('milliseconds', created_at)
    where created_at <> date_trunc('milliseconds', created_at)`.execute(db);
  await sql`alter table alerts add constraint alerts_created_at_ms
    check (created_at = date_trunc('milliseconds', created_at))`.execute(db);

  await sql`create table alert_counts (
    tenant_id uuid not null,
    granularity text not null check (granularity in ('hour', 'day', 'month')),
    bucket timestamptz not null,
    severity text not null,
    count bigint not null,
    constraint alert_counts_pk primary key (tenant_id, granularity, bucket, severity) include (count)
  ) with (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01)`.execute(db);
  await sql`create table alert_count_deltas (
    tenant_id uuid not null,
    bucket timestamptz not null,
    severity text not null,
    count bigint not null
  ) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0)`
    .execute(db);

  // Only open alerts count: an insert of an open alert is +1, its resolve -1 (old row open, new not).
  const deltasOf = (rows: string) => sql.raw(`
    insert into alert_count_deltas (tenant_id, bucket, severity, count)
    select tenant_id, date_trunc('hour', created_at, 'UTC'), severity, sum(sign)
    from ${rows} r where status = 'open'
    group by 1, 2, 3 having sum(sign) <> 0`);
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

  // As interaction_counts_rebuild, under the alert compaction's lock.
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
}
