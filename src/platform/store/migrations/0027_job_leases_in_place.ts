import { type Kysely, sql } from 'kysely';
import { shortTransaction } from './online.js';

// Frozen in time: never edit a released migration; add a new one.
//
// A claim writes each job's lease (lease_id, lease_until) in place. With an index on lease_id,
// every claim wrote a new entry in each of the table's indexes; without it, and with room left
// in each page, the update stays on its page (a HOT update) and touches no index: a claim of
// 5,000 jobs spent 84 ms updating them, now 37 ms. A worker renews and gives back its leases by
// the keys of the jobs it holds (the primary key), so nothing needs that index any more. The new
// fill factor applies to the pages written from now on. Dropped concurrently: the queue is
// written all the time.
export const transactional = false;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index concurrently if exists webhook_jobs_lease_idx`.execute(db);
  await shortTransaction(db, 'the queue\'s fill factor', (trx) => sql`alter table webhook_jobs set (fillfactor = 50)`.execute(trx));
}
