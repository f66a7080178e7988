import { type Kysely, sql } from 'kysely';
import { createIndexConcurrently, shortTransaction } from './online.js';

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
//
// Online (ingest goes on while it runs): outside one transaction, every step safe to run again;
// the catalog changes of the tables ingest writes are short transactions of their own, the
// indexes are built concurrently, and the existing rows are filled in batches or recounted in
// one snapshot after the triggers changed, never under their locks.
export const transactional = false;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence if not exists count_generations`.execute(db);
  await sql`create table if not exists count_folds (
    family text not null check (family in ('interactions', 'alerts')),
    position xid8 not null,
    constraint count_folds_pk primary key (family, position)
  )`.execute(db);

  await positionInteractionDeltas(db);
  await generationsInInteractionCounts(db);
  await recountAlertsByGeneration(db);
}

/**
 * `interaction_count_deltas.position`: each new delta gets its writer's transaction id from the
 * moment the default is set; the rows written before get the id of the batch that fills them.
 * The first fold mark is the oldest transaction still running then (or this one): every delta
 * written since, and every filled one, lies at or past it.
 */
async function positionInteractionDeltas(db: Kysely<any>): Promise<void> {
  await shortTransaction(db, 'Migration 0014 (deltas position)', async (trx) => {
    await sql`alter table interaction_count_deltas add column if not exists position xid8`.execute(trx);
    await sql`alter table interaction_count_deltas alter column position set default pg_current_xact_id()`.execute(trx);
    await sql`insert into count_folds (family, position)
      select 'interactions', least(pg_snapshot_xmin(pg_current_snapshot()), pg_current_xact_id())
      where not exists (select from count_folds where family = 'interactions')`.execute(trx);
  });
  for (;;) {
    const { numAffectedRows } = await sql`update interaction_count_deltas set position = pg_current_xact_id()
      where ctid = any(array(select ctid from interaction_count_deltas where position is null limit 10000))`.execute(db);
    if (!numAffectedRows) break;
  }
  await setNotNull(db, 'interaction_count_deltas', 'position');
  await createIndexConcurrently(db, 'interaction_count_deltas_position_idx', sql`on interaction_count_deltas (position)`);
}

/**
 * A column filled for every row made NOT NULL without a scan under the table's lock: a check
 * constraint added NOT VALID, validated (writers go on), then the NOT NULL PostgreSQL proves from it.
 */
async function setNotNull(db: Kysely<any>, table: string, column: string): Promise<void> {
  const { rows } = await sql<{ notnull: boolean }>`select attnotnull as notnull from pg_attribute
    where attrelid = ${table}::regclass and attname = ${column}`.execute(db);
  if (rows[0]?.notnull === true) return;
  const check = sql.id(`${table}_${column}_filled`);
  await shortTransaction(db, `Migration 0014 (${table}.${column})`, async (trx) => {
    await sql`alter table ${sql.table(table)} drop constraint if exists ${check}`.execute(trx);
    await sql`alter table ${sql.table(table)} add constraint ${check} check (${sql.ref(column)} is not null) not valid`.execute(trx);
  });
  await sql`alter table ${sql.table(table)} validate constraint ${check}`.execute(db);
  await shortTransaction(db, `Migration 0014 (${table}.${column})`, async (trx) => {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set not null`.execute(trx);
    await sql`alter table ${sql.table(table)} drop constraint ${check}`.execute(trx);
  });
}

/** Generations in `interaction_counts`, which the fold alone writes (never ingest). */
async function generationsInInteractionCounts(db: Kysely<any>): Promise<void> {
  await shortTransaction(db, 'Migration 0014 (counts generations)', async (trx) => {
    await sql`alter table interaction_counts drop constraint if exists interaction_counts_pk`.execute(trx);
    await sql`alter table interaction_counts add column if not exists generation bigint not null default 0,
      add column if not exists appended boolean not null default false`.execute(trx);
  });
  await sql`drop index concurrently if exists interaction_counts_rollup_idx`.execute(db);
  await createIndexConcurrently(db, 'interaction_counts_current_idx', sql`on interaction_counts
    (tenant_id, granularity, bucket, generation desc, classification_type, platform_id, source, direction, risk_bucket)
    include (count, appended)`);
}

/**
 * The alert counts of 0.7 (open alerts by severity) replaced by counts by status, severity and
 * policy: the new empty tables and the alerts' triggers swapped in one short transaction, then
 * the alerts recounted in a transaction of its own. The recount reads the alerts and wipes the
 * deltas the new triggers wrote in one snapshot: what committed after it stays in the deltas,
 * what committed before is in the recount, once. The fold mark, written with it, makes it run once.
 */
async function recountAlertsByGeneration(db: Kysely<any>): Promise<void> {
  const { rows } = await sql`select from pg_attribute
    where attrelid = 'alert_counts'::regclass and attname = 'generation' and not attisdropped`.execute(db);
  if (rows.length === 0) await shortTransaction(db, 'Migration 0014 (alert counts)', swapAlertCounts);
  await db.transaction().execute(async (trx) => {
    const { rows: marks } = await sql`select from count_folds where family = 'alerts'`.execute(trx);
    if (marks.length > 0) return;
    // Taken before the recount's snapshot: a transaction it does not see is still running then, past this mark.
    await sql`insert into count_folds (family, position)
      values ('alerts', least(pg_snapshot_xmin(pg_current_snapshot()), pg_current_xact_id()))`.execute(trx);
    await sql`select alert_counts_rebuild(null)`.execute(trx);
  });
}

async function swapAlertCounts(db: Kysely<any>): Promise<void> {
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
}
