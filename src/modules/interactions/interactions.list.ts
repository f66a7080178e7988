import { type ExpressionBuilder, type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { type Keyset, KeysetPage, sortKey } from '../../kernel/paging/cursor.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import type { DateRange } from '../../kernel/dates.js';
import type { InteractionSort, ListInteractionsFilters } from './interactions.schemas.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface ListCriteria extends Omit<ListInteractionsFilters, 'page' | 'limit' | 'cursor' | 'start_date' | 'end_date'> {
  range: DateRange;
}

// Every sort ends with timestamp and id in the same direction: a total order that an index
// (tenant_id, <field>, timestamp, id) returns as is, forwards or backwards.
const TIME = sortKey.instant('interactions.timestamp');
const ID = sortKey.uuid('interactions.id');
const SORT_KEYS = {
  timestamp: [TIME, ID],
  risk_score: [sortKey.number('interactions.risk_score', [0, 1]), TIME, ID],
  platform_id: [sortKey.text('interactions.platform_id'), TIME, ID],
};
// The same order read from a classification type's index (its timestamp is the interaction's).
const CLASSIFIED_KEYS = [sortKey.instant('c.timestamp'), sortKey.uuid('c.interaction_id')];

/** The conditions of a list's filters on `interactions` (the classification type and fingerprint excepted). */
function columnConditions(eb: ExpressionBuilder<Database, 'interactions'>, tenantId: string, criteria: ListCriteria) {
  const conditions = [eb('interactions.tenant_id', '=', tenantId)];
  if (criteria.platform_id !== undefined) conditions.push(eb('interactions.platform_id', '=', criteria.platform_id));
  if (criteria.risk_score_min !== undefined) conditions.push(eb('interactions.risk_score', '>=', criteria.risk_score_min));
  if (criteria.risk_score_max !== undefined) conditions.push(eb('interactions.risk_score', '<=', criteria.risk_score_max));
  if (criteria.source !== undefined) conditions.push(eb('interactions.source', '=', criteria.source));
  if (criteria.direction !== undefined) conditions.push(eb('interactions.direction', '=', criteria.direction));
  if (criteria.user_id !== undefined) conditions.push(eb('interactions.user_id', '=', criteria.user_id));
  if (criteria.range.start) conditions.push(eb('interactions.timestamp', '>=', criteria.range.start));
  if (criteria.range.end) conditions.push(eb('interactions.timestamp', '<=', criteria.range.end));
  return conditions;
}

function classifiedAs(eb: ExpressionBuilder<Database, 'interactions'>, tenantId: string, type: string) {
  return eb.exists(eb.selectFrom('interaction_classification_types as t').select(sql.lit(1).as('one'))
    .where('t.tenant_id', '=', tenantId)
    .where('t.classification_type', '=', type)
    .whereRef('t.interaction_id', '=', 'interactions.id'));
}

/** The interactions matching a list's filters (the page query and the exact count start from it). */
export function filteredInteractions(db: Db, tenantId: string, criteria: ListCriteria) {
  return db.selectFrom('interactions').where((eb) => {
    const conditions = columnConditions(eb, tenantId, criteria);
    if (criteria.classification_type !== undefined) conditions.push(classifiedAs(eb, tenantId, criteria.classification_type));
    if (criteria.fingerprint !== undefined) {
      conditions.push(eb.exists(eb.selectFrom('interaction_fingerprints as f').select(sql.lit(1).as('one'))
        .where('f.tenant_id', '=', tenantId)
        .where('f.fingerprint', '=', criteria.fingerprint)
        .whereRef('f.interaction_id', '=', 'interactions.id')));
    }
    return eb.and(conditions);
  });
}

/**
 * A fingerprint or a classification type sorted by time is read from its own index, newest (or
 * oldest) first, each entry joined to its interaction by primary key: a rare value or type does
 * not walk the whole tenant's time index to find a page. A fingerprint, the narrower, leads.
 */
function drivingIndex(criteria: ListCriteria): 'fingerprint' | 'classification_type' | undefined {
  if (!sortOf(criteria).endsWith('timestamp')) return undefined;
  if (criteria.fingerprint !== undefined) return 'fingerprint';
  return criteria.classification_type !== undefined ? 'classification_type' : undefined;
}

function sortOf(criteria: ListCriteria): InteractionSort {
  return criteria.sort ?? '-timestamp';
}

function keysetOf(criteria: ListCriteria): Keyset {
  const sort = sortOf(criteria);
  const field = sort.replace(/^-/, '') as keyof typeof SORT_KEYS;
  return {
    keys: drivingIndex(criteria) ? CLASSIFIED_KEYS : SORT_KEYS[field],
    direction: sort.startsWith('-') ? 'desc' : 'asc',
  };
}

/** The requested page of a list; a cursor made for other filters or another sort is a 400. */
export function openPage(criteria: ListCriteria, request: PageRequest): KeysetPage {
  const { range, ...filters } = criteria;
  return KeysetPage.open(request, keysetOf(criteria), {
    list: 'interactions', ...filters, sort: sortOf(criteria), start_date: range.start, end_date: range.end,
  });
}

/** One page of a list, in the sort's total order (plus one row: is there a next page?). */
export function pageQuery(db: Db, tenantId: string, criteria: ListCriteria, page: KeysetPage) {
  const driving = drivingIndex(criteria);
  if (driving === 'fingerprint') {
    const { fingerprint, ...others } = criteria as ListCriteria & { fingerprint: string };
    const matching = db.selectFrom('interaction_fingerprints as c')
      .innerJoin('interactions', (join) => join.onRef('interactions.tenant_id', '=', 'c.tenant_id')
        .onRef('interactions.id', '=', 'c.interaction_id'))
      .where('c.tenant_id', '=', tenantId)
      .where('c.fingerprint', '=', fingerprint)
      .where((eb) => eb.and([...columnConditions(eb, tenantId, others),
        ...(others.classification_type === undefined ? [] : [classifiedAs(eb, tenantId, others.classification_type)])]))
      .selectAll('interactions');
    return page.apply(matching);
  }
  if (driving === 'classification_type') {
    const classified = db.selectFrom('interaction_classification_types as c')
      .innerJoin('interactions', (join) => join.onRef('interactions.tenant_id', '=', 'c.tenant_id')
        .onRef('interactions.id', '=', 'c.interaction_id'))
      .where('c.tenant_id', '=', tenantId)
      .where('c.classification_type', '=', criteria.classification_type!)
      .where((eb) => eb.and(columnConditions(eb, tenantId, criteria)))
      .selectAll('interactions');
    return page.apply(classified);
  }
  return page.apply(filteredInteractions(db, tenantId, criteria).selectAll('interactions'));
}
