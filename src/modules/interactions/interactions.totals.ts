import { type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import { filteredInteractions, type ListCriteria } from './interactions.list.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The exact number of interactions matching a list's filters. */
export function countQuery(db: Db, tenantId: string, criteria: ListCriteria) {
  return filteredInteractions(db, tenantId, criteria).select((eb) => eb.fn.countAll<number>().as('total'));
}

export async function countInteractions(db: Db, tenantId: string, criteria: ListCriteria): Promise<number> {
  const row = await countQuery(db, tenantId, criteria).executeTakeFirstOrThrow();
  return Number(row.total);
}
