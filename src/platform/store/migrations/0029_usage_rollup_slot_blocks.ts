import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Roll-ups of blocks of slots, beside the hours and 5-minute slots of usage_rollup_slots (0028):
// 15 and 30 minutes, 3, 6 and 12 hours, each aligned on its own length from 1970-01-01T00:00Z (so
// within an hour, or within a day). A period's partial day then reads a few blocks rather than up
// to 23 hours and 11 slots. Every roll-up also holds each platform's interactions and high-risk
// interactions (arrays in the order of `platforms`), so platform usage is counted from them too
// (docs/platforms.md, "Roll-ups"). The roll-ups written before lack those counts: they go, and
// the job rolls everything up again after the upgrade (readers count from the rows until then).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table usage_rollup_slots drop constraint usage_rollup_slots_minutes_check`.execute(db);
  await sql`alter table usage_rollup_slots add constraint usage_rollup_slots_minutes_check
    check (minutes in (5, 15, 30, 60, 180, 360, 720))`.execute(db);
  for (const table of ['usage_rollups', 'usage_rollup_slots']) {
    await sql`delete from ${sql.table(table)}`.execute(db);
    await sql`alter table ${sql.table(table)}
      add column platform_interactions bigint[] not null default '{}',
      add column platform_high_risk bigint[] not null default '{}'`.execute(db);
  }
}
