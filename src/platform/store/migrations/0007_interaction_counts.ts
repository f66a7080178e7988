import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Exact list totals and stats without counting rows (docs/interaction-counts.md):
// - interaction_counts: per tenant, the number of interactions in each hour, day and month
//   (`granularity`) by platform, source, direction and risk bucket; `classification_type` ''
//   counts every interaction, any other value the interactions having that type.
// - interaction_count_deltas: what each statement on `interactions` added or removed, at hour
//   granularity, written by statement triggers in the writer's transaction. Append-only, so
//   concurrent writers never wait on a shared counter row; the compaction worker moves deltas
//   into interaction_counts in one statement. A total sums both, so it is exact whether or not
//   the compaction has run.
export async function up(db: Kysely<any>): Promise<void> {
  // Totals rely on it: a whole hour [h, h+1h) lies within `timestamp <= end` iff h+1h <= end+1ms.
  // The service stores JS dates (milliseconds), so no row is touched.
  await sql`alter table interactions add constraint interactions_timestamp_ms
    check (timestamp = date_trunc('milliseconds', timestamp))`.execute(db);

  // Buckets [0, 0.1), [0.1, 0.2) ... [0.9, 1]: the same float8 comparisons as the list's risk filters.
  await sql`create function interaction_risk_bucket(score float8) returns smallint
    language sql immutable parallel safe
    as $$ select width_bucket(score, '{0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9}'::float8[])::smallint $$`.execute(db);

  const dimensions = sql`platform_id text not null,
    source text not null,
    direction text not null,
    risk_bucket smallint not null,
    count bigint not null`;
  // The primary key includes `count`: a sum is an index-only scan of adjacent entries (the rows of
  // one hour are scattered over the heap by the compaction: 14 ms for 6,000 rows, 1.5 ms
  // index-only). It leads with the time, not the type: the stats read every type of a range.
  // Vacuumed often, so the visibility map stays current.
  await sql`create table interaction_counts (
    tenant_id uuid not null,
    classification_type text not null,
    granularity text not null check (granularity in ('hour', 'day', 'month')),
    bucket timestamptz not null,
    ${dimensions},
    constraint interaction_counts_pk primary key
      (tenant_id, granularity, bucket, classification_type, platform_id, source, direction, risk_bucket) include (count)
  ) with (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01)`.execute(db);
  // The deltas have no index: only the compaction reads them whole, and totals scan them while small.
  await sql`create table interaction_count_deltas (
    tenant_id uuid not null,
    classification_type text not null,
    bucket timestamptz not null,
    ${dimensions}
  ) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0)`
    .execute(db);

  // One row per (hour, dimensions) of the changed rows, and one per classification type they have.
  const deltasOf = (rows: string) => sql.raw(`
    insert into interaction_count_deltas
      (tenant_id, classification_type, bucket, platform_id, source, direction, risk_bucket, count)
    select tenant_id, '', date_trunc('hour', timestamp, 'UTC'), platform_id, source, direction,
      interaction_risk_bucket(risk_score), sum(sign)
    from ${rows} r group by 1, 3, 4, 5, 6, 7
    union all
    select r.tenant_id, t.type, date_trunc('hour', r.timestamp, 'UTC'), r.platform_id, r.source, r.direction,
      interaction_risk_bucket(r.risk_score), sum(sign)
    from ${rows} r cross join lateral
      (select distinct c->>'type' as type from jsonb_array_elements(r.classifications) c) t
    group by 1, 2, 3, 4, 5, 6, 7`);
  await sql`create function interaction_counts_on_insert() returns trigger language plpgsql as $$
    begin ${deltasOf('(select *, 1::bigint as sign from changed)')}; return null; end $$`.execute(db);
  await sql`create function interaction_counts_on_delete() returns trigger language plpgsql as $$
    begin ${deltasOf('(select *, -1::bigint as sign from changed)')}; return null; end $$`.execute(db);
  await sql`create function interaction_counts_on_update() returns trigger language plpgsql as $$
    begin ${deltasOf('(select *, 1::bigint as sign from new_rows union all select *, -1::bigint from old_rows)')};
    return null; end $$`.execute(db);
  await sql`create trigger interaction_counts_on_insert after insert on interactions
    referencing new table as changed for each statement execute function interaction_counts_on_insert()`.execute(db);
  await sql`create trigger interaction_counts_on_delete after delete on interactions
    referencing old table as changed for each statement execute function interaction_counts_on_delete()`.execute(db);
  await sql`create trigger interaction_counts_on_update after update on interactions
    referencing old table as old_rows new table as new_rows
    for each statement execute function interaction_counts_on_update()`.execute(db);

  // Recounts a tenant (every tenant when null) from its rows: wipes its counts and deltas and
  // writes its rows' counts as deltas, all in one statement (one snapshot), so rows committed
  // meanwhile keep their own deltas. Takes the compaction's lock so the two never interleave.
  await sql`create function interaction_counts_rebuild(p_tenant uuid) returns void language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(7769, 0);
      with wiped_counts as (
        delete from interaction_counts where p_tenant is null or tenant_id = p_tenant
      ), wiped_deltas as (
        delete from interaction_count_deltas where p_tenant is null or tenant_id = p_tenant
      )
      ${deltasOf('(select *, 1::bigint as sign from interactions where p_tenant is null or tenant_id = p_tenant)')};
    end $$`.execute(db);
  await sql`select interaction_counts_rebuild(null)`.execute(db);
}
