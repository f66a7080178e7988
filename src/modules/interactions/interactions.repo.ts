import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Page } from '../../lib/pagination.js';
import type { DateRange } from './dates.js';
import type { InteractionResponse, InteractionSort, ListInteractionsFilters } from './interactions.schemas.js';

type Db = Kysely<Database> | Transaction<Database>;

/** One multi-row insert for all the interactions of a create or a batch (at most 500 x 13 parameters). */
export async function insertInteractions(tx: Db, interactions: readonly InteractionResponse[]): Promise<void> {
  await tx.insertInto('interactions').values(interactions.map((i) => ({
    tenant_id: i.tenant_id,
    id: i.id,
    timestamp: i.timestamp,
    platform_id: i.platform_id,
    content_hash: i.content_hash,
    interaction_type: i.interaction_type,
    content_metadata: JSON.stringify(i.content_metadata),
    classifications: JSON.stringify(i.classifications),
    risk_score: i.risk_score,
    direction: i.direction,
    source: i.source,
    user_id: i.user_id,
    policy_decisions: JSON.stringify(i.policy_decisions),
  }))).execute();
}

/**
 * The distinct classification types of each interaction, in one statement whatever their
 * number: the rows travel as one JSON parameter (a batch may carry 500 x 1000 of them).
 */
export async function insertClassificationTypes(
  tx: Db, tenantId: string, interactions: readonly InteractionResponse[], timestamp: Date,
): Promise<void> {
  const rows = interactions.flatMap((i) =>
    [...new Set(i.classifications.map((c) => c.type))].map((type) => ({ interaction_id: i.id, classification_type: type })));
  if (rows.length === 0) return;
  await sql`insert into interaction_classification_types (tenant_id, interaction_id, classification_type, timestamp)
            select ${tenantId}, r.interaction_id, r.classification_type, ${timestamp}
            from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(interaction_id uuid, classification_type text)`
    .execute(tx);
}

export interface ListCriteria extends Omit<ListInteractionsFilters, 'page' | 'limit' | 'start_date' | 'end_date'> {
  range: DateRange;
}

// Every sort ends with timestamp and id in the same direction: a total order that an index
// (tenant_id, <field>, timestamp, id) returns as is, forwards or backwards.
const SORT_KEYS: Record<string, Array<'timestamp' | 'risk_score' | 'platform_id' | 'id'>> = {
  timestamp: ['timestamp', 'id'],
  risk_score: ['risk_score', 'timestamp', 'id'],
  platform_id: ['platform_id', 'timestamp', 'id'],
};

/** The page query and the count query of a list (built apart so their plans can be checked). */
export function listQueries(db: Db, tenantId: string, criteria: ListCriteria, page: Page) {
  const base = db.selectFrom('interactions').where((eb) => {
    const conditions = [eb('interactions.tenant_id', '=', tenantId)];
    if (criteria.platform_id !== undefined) conditions.push(eb('platform_id', '=', criteria.platform_id));
    if (criteria.risk_score_min !== undefined) conditions.push(eb('risk_score', '>=', criteria.risk_score_min));
    if (criteria.risk_score_max !== undefined) conditions.push(eb('risk_score', '<=', criteria.risk_score_max));
    if (criteria.source !== undefined) conditions.push(eb('source', '=', criteria.source));
    if (criteria.direction !== undefined) conditions.push(eb('direction', '=', criteria.direction));
    if (criteria.user_id !== undefined) conditions.push(eb('user_id', '=', criteria.user_id));
    if (criteria.range.start) conditions.push(eb('timestamp', '>=', criteria.range.start));
    if (criteria.range.end) conditions.push(eb('timestamp', '<=', criteria.range.end));
    if (criteria.classification_type !== undefined) {
      conditions.push(eb.exists(eb.selectFrom('interaction_classification_types as c').select(sql.lit(1).as('one'))
        .where('c.tenant_id', '=', tenantId)
        .where('c.classification_type', '=', criteria.classification_type)
        .whereRef('c.interaction_id', '=', 'interactions.id')));
    }
    return eb.and(conditions);
  });
  const sort: InteractionSort = criteria.sort ?? '-timestamp';
  const direction = sort.startsWith('-') ? 'desc' : 'asc';
  let rows = base.selectAll('interactions');
  for (const key of SORT_KEYS[sort.replace(/^-/, '')]!) rows = rows.orderBy(key, direction);
  return {
    rows: rows.limit(page.limit).offset(page.offset),
    count: base.select((eb) => eb.fn.countAll<number>().as('total')),
  };
}

export async function listInteractionRows(db: Db, tenantId: string, criteria: ListCriteria, page: Page) {
  const queries = listQueries(db, tenantId, criteria, page);
  const [rows, count] = await Promise.all([queries.rows.execute(), queries.count.executeTakeFirstOrThrow()]);
  return { rows, total: Number(count.total) };
}

export async function findInteraction(db: Db, tenantId: string, id: string) {
  return db.selectFrom('interactions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** The interactions of one content hash, newest first: served by interactions_hash_idx. */
export function searchQuery(db: Db, tenantId: string, contentHash: string, range: DateRange, limit: number) {
  let query = db.selectFrom('interactions')
    .select(['id', 'platform_id', 'content_hash', 'timestamp', 'risk_score', 'classifications'])
    .where('tenant_id', '=', tenantId)
    .where('content_hash', '=', contentHash);
  if (range.start) query = query.where('timestamp', '>=', range.start);
  if (range.end) query = query.where('timestamp', '<=', range.end);
  return query.orderBy('timestamp', 'desc').orderBy('id', 'desc').limit(limit);
}

/** Deletes the interaction (its classification-type rows go with it); its alerts stay. */
export async function deleteInteractionRow(tx: Db, tenantId: string, id: string) {
  return tx.deleteFrom('interactions').where('tenant_id', '=', tenantId).where('id', '=', id)
    .returning(['id', 'content_hash', 'platform_id']).executeTakeFirst();
}
