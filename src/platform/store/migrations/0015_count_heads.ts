import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Each bucket's current generation and its size, kept by the fold: until now every fold counted
// the rows of each bucket it touched to decide whether to merge it, and a month bucket holds
// thousands (a profile under 1,000 creates/s: 142 ms of each one-second fold, three month buckets
// of ~10,000 rows each). Readers never read this table; the fold alone writes it, under its lock,
// in the statement that writes the counts. Sizes only decide when to merge: after a rebuild of the
// counts they may be stale, which moves a merge, never a total.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table count_heads (
    family text not null check (family in ('interactions', 'alerts')),
    tenant_id uuid not null,
    granularity text not null,
    bucket timestamptz not null,
    generation bigint not null,
    merged integer not null,
    appended integer not null,
    constraint count_heads_pk primary key (family, tenant_id, granularity, bucket)
  ) with (fillfactor = 50)`.execute(db);
  for (const [family, table] of [['interactions', 'interaction_counts'], ['alerts', 'alert_counts']] as const) {
    await sql`insert into count_heads (family, tenant_id, granularity, bucket, generation, merged, appended)
      select ${family}, c.tenant_id, c.granularity, c.bucket, c.generation,
        count(*) filter (where not c.appended), count(*) filter (where c.appended)
      from ${sql.table(table)} c
      join (select tenant_id, granularity, bucket, max(generation) as generation from ${sql.table(table)} group by 1, 2, 3) newest
        using (tenant_id, granularity, bucket, generation)
      group by 1, 2, 3, 4, 5`.execute(db);
  }
}
