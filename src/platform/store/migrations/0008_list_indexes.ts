import type { Kysely } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Keyset pages of `GET /interactions?platform_id=…&sort=-risk_score` (the riskiest interactions
// of one platform): the platform filter, then the sort's keys, so a page reads its rows in
// order from the cursor's key and stops (docs/interactions.md, "Storage and indexes").
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('interactions_platform_risk_idx')
    .on('interactions')
    .columns(['tenant_id', 'platform_id', 'risk_score', 'timestamp', 'id'])
    .execute();
}
