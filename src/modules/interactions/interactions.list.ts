import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Page } from '../../lib/pagination.js';
import type { DateRange } from './dates.js';
import type { InteractionSort, ListInteractionsFilters } from './interactions.schemas.js';

type Db = Kysely<Database> | Transaction<Database>;

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

/** The interactions matching a list's filters (the page query and the exact count start from it). */
export function filteredInteractions(db: Db, tenantId: string, criteria: ListCriteria) {
  return db.selectFrom('interactions').where((eb) => {
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
}

/** One page of a list, in the sort's total order. */
export function pageQuery(db: Db, tenantId: string, criteria: ListCriteria, page: Page) {
  const sort: InteractionSort = criteria.sort ?? '-timestamp';
  const direction = sort.startsWith('-') ? 'desc' : 'asc';
  let rows = filteredInteractions(db, tenantId, criteria).selectAll('interactions');
  for (const key of SORT_KEYS[sort.replace(/^-/, '')]!) rows = rows.orderBy(key, direction);
  return rows.limit(page.limit).offset(page.offset);
}

