import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Count levels: each generation of interaction_counts also summed over the dimensions a filter or
// a stats breakdown leaves open, so a total filtered on one dimension reads a few rows per bucket
// instead of every combination of the others (docs/interaction-counts.md, "Levels"):
// - `platform_risk`: per classification type, platform and risk bucket (source and direction '');
// - `source_direction`: per type, source and direction (platform '', risk bucket -1);
// - `source_risk`: per type, source and risk bucket (platform and direction '').
// Written by statement triggers on interaction_counts itself, from its detail rows, in the same
// statement's transaction: whatever writes counts (a fold, a merge, a rebuild, a release that
// predates the levels during a rolling upgrade) writes their levels, and a generation's levels
// are deleted with its rows. Existing generations get theirs here, under the counts' compaction
// lock (keys of src/kernel/lock-ids.ts), from the counts (a few rows per bucket and combination,
// never the interactions). Under row-level security like every tenant table (0017).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table interaction_count_levels (
    tenant_id uuid not null references tenants (id) on delete cascade,
    granularity text not null,
    bucket timestamptz not null,
    generation bigint not null,
    level text not null check (level in ('platform_risk', 'source_direction', 'source_risk')),
    classification_type text not null,
    platform_id text not null,
    source text not null,
    direction text not null,
    risk_bucket smallint not null,
    count bigint not null
  )`.execute(db);

  const visible = sql`(select ugs_scope_all()) or tenant_id = any ((select ugs_scope_tenants())::uuid[])`;
  await sql`alter table interaction_count_levels enable row level security`.execute(db);
  await sql`alter table interaction_count_levels force row level security`.execute(db);
  await sql`create policy tenant_scope on interaction_count_levels using (${visible}) with check (${visible})`.execute(db);
  await sql`grant select, insert, update, delete on interaction_count_levels to ugs_app`.execute(db);

  // The levels of detail rows (platform_id <> ''; the roll-ups have ''), from the relation `rows`.
  const levelsOf = (rows: string) => sql.raw(`
    select tenant_id, granularity, bucket, generation, 'platform_risk', classification_type, platform_id, '', '', risk_bucket, sum(count)
    from ${rows} where platform_id <> '' group by tenant_id, granularity, bucket, generation, classification_type, platform_id, risk_bucket
    union all
    select tenant_id, granularity, bucket, generation, 'source_direction', classification_type, '', source, direction, -1, sum(count)
    from ${rows} where platform_id <> '' group by tenant_id, granularity, bucket, generation, classification_type, source, direction
    union all
    select tenant_id, granularity, bucket, generation, 'source_risk', classification_type, '', source, '', risk_bucket, sum(count)
    from ${rows} where platform_id <> '' group by tenant_id, granularity, bucket, generation, classification_type, source, risk_bucket`);
  const columns = sql.raw(`tenant_id, granularity, bucket, generation, level, classification_type, platform_id, source, direction,
    risk_bucket, count`);

  await sql`create function interaction_count_levels_on_insert() returns trigger language plpgsql as $$
    begin
      insert into interaction_count_levels (${columns}) ${levelsOf('added')};
      return null;
    end $$`.execute(db);
  // A generation is only ever deleted whole (a merge replaces it, a rebuild recounts the tenant).
  await sql`create function interaction_count_levels_on_delete() returns trigger language plpgsql as $$
    begin
      delete from interaction_count_levels l
      using (select distinct tenant_id, granularity, bucket, generation from removed) r
      where l.tenant_id = r.tenant_id and l.granularity = r.granularity and l.bucket = r.bucket and l.generation = r.generation;
      return null;
    end $$`.execute(db);

  // Folds wait from here to the commit (writes to interactions do not: they append deltas).
  await sql`select pg_advisory_xact_lock(7769, 0)`.execute(db);
  await sql`create trigger interaction_count_levels_on_insert after insert on interaction_counts
    referencing new table as added for each statement execute function interaction_count_levels_on_insert()`.execute(db);
  await sql`create trigger interaction_count_levels_on_delete after delete on interaction_counts
    referencing old table as removed for each statement execute function interaction_count_levels_on_delete()`.execute(db);
  await sql`insert into interaction_count_levels (${columns}) ${levelsOf('interaction_counts')}`.execute(db);
  // Built once over the filled table rather than maintained row by row by the fill.
  await sql`create index interaction_count_levels_current_idx on interaction_count_levels
    (tenant_id, granularity, bucket, generation, level, classification_type, platform_id, source, direction, risk_bucket)
    include (count)`.execute(db);
}
