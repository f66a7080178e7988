import { type Insertable, type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Page } from '../../lib/pagination.js';
import type { DateRange } from './dates.js';
import type { InteractionResponse, InteractionSort, ListInteractionsFilters } from './interactions.schemas.js';
import type { AlertsTable } from './interactions.tables.js';
import { type FanOutRows, fanOutInserts } from '../delivery/fan-out.js';
import { jsonOf } from '../../lib/json-once.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Stores interactions (of any tenants), their classification types, their alerts and the
 * webhook messages and jobs of their events in one statement whatever their number: each table's
 * rows travel as one parameter, serialised once (interactions and alerts as JSON that the server
 * expands with `json(b)_populate_recordset`, so jsonb columns arrive as JSON, not strings in
 * strings). The interactions are read as jsonb: their jsonb columns are then taken as parsed,
 * where `json` parsed them twice (22 % more rows/s in batches of 500).
 */
export async function insertIngested(
  tx: Db, interactions: readonly InteractionResponse[], alerts: readonly Insertable<AlertsTable>[],
  fanOut: FanOutRows | undefined, now: Date,
): Promise<void> {
  await sql`
    with new_rows as (
      select * from jsonb_populate_recordset(null::interactions, ${`[${interactions.map(jsonOf).join(',')}]`}::jsonb)
    ),
    stored as (
      insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type,
        content_metadata, classifications, risk_score, direction, source, user_id, policy_decisions)
      select tenant_id, id, timestamp, platform_id, content_hash, interaction_type,
        content_metadata, classifications, risk_score, direction, source, user_id, policy_decisions
      from new_rows
    ),
    classified as (
      insert into interaction_classification_types (tenant_id, interaction_id, classification_type, timestamp)
      select distinct r.tenant_id, r.id, c.type, r.timestamp
      from new_rows r cross join lateral jsonb_to_recordset(r.classifications) as c(type text)
    ),
    new_alerts as (
      insert into alerts (tenant_id, id, interaction_id, policy_id, policy_name, severity, status, created_at)
      select tenant_id, id, interaction_id, policy_id, policy_name, severity, status, created_at
      from json_populate_recordset(null::alerts, ${JSON.stringify(alerts)}::json)
    )${fanOut ? sql`, ${fanOutInserts(fanOut, now)}` : sql``}
    select 1`.execute(tx);
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
