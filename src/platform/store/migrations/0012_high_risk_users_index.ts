import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// The stats' top users (docs/interactions.md, "Stats"): the high-risk interactions (risk_score >=
// 0.7) of a date range grouped by user. Without it they were read through interactions_risk_idx
// plus a heap fetch per row for its user_id (~6 % of a tenant's rows in the bench's distribution).
// Partial, so it holds only those rows, and only their timestamp and user_id: an index-only range
// scan of the range's high-risk rows.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index interactions_high_risk_user_idx on interactions (tenant_id, timestamp) include (user_id)
    where risk_score >= 0.7 and user_id is not null`.execute(db);
}
