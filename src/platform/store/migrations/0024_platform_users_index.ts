import { type Kysely, sql } from 'kysely';
import { createIndexConcurrently } from './online.js';

// Frozen in time: never edit a released migration; add a new one.
//
// The distinct users of each platform over a period (`GET /platforms/usage`) and the platforms
// each user used (`GET /people/risk`), without reading the period's rows: the users of a platform
// are walked one index probe each (a skip scan on user_id), and whether one of them used it within
// the period is one more probe on (user_id, timestamp). Partial: interactions without a user
// count for no one. Built concurrently: interactions is written all the time.
export const transactional = false;

export async function up(db: Kysely<any>): Promise<void> {
  await createIndexConcurrently(db, 'interactions_platform_user_idx',
    sql`on interactions (tenant_id, platform_id, user_id, timestamp) where user_id is not null`);
}
