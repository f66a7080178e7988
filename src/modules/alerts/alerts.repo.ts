import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { type Keyset, KeysetPage, sortKey } from '../../kernel/paging/cursor.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import type { AlertsTable } from '../../kernel/tables/interactions.js';
import type { DateRange } from '../../kernel/dates.js';
import type { AlertListFilters } from './alerts.schemas.js';
import { alertTotal } from '../counts/alert-sums.js';

type Db = Kysely<Database> | Transaction<Database>;
export type AlertRow = Selectable<AlertsTable>;

export async function findAlert(db: Db, tenantId: string, id: string): Promise<AlertRow | undefined> {
  return db.selectFrom('alerts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** Resolves the alert if it is open; undefined if it is not (missing or already resolved). */
export async function resolveOpenAlert(tx: Db, tenantId: string, id: string, resolvedBy: string | null, now: Date) {
  return tx.updateTable('alerts')
    .set({ status: 'resolved', resolved_at: now, resolved_by: resolvedBy })
    .where('tenant_id', '=', tenantId).where('id', '=', id).where('status', '=', 'open')
    .returningAll().executeTakeFirst();
}

const NEWEST_FIRST: Keyset = { keys: [sortKey.instant('created_at'), sortKey.uuid('id')], direction: 'desc' };

function matchingAlerts(db: Db, tenantId: string, filters: AlertListFilters, range: DateRange) {
  return db.selectFrom('alerts').where((eb) => {
    const conditions = [eb('tenant_id', '=', tenantId)];
    if (filters.status) conditions.push(eb('status', '=', filters.status));
    if (filters.severity) conditions.push(eb('severity', '=', filters.severity));
    if (filters.policy_id) conditions.push(eb('policy_id', '=', filters.policy_id));
    if (filters.interaction_id) conditions.push(eb('interaction_id', '=', filters.interaction_id));
    if (range.start) conditions.push(eb('created_at', '>=', range.start));
    if (range.end) conditions.push(eb('created_at', '<=', range.end));
    return eb.and(conditions);
  });
}

/**
 * The list's total: an interaction's alerts are few, counted from their rows; any other total
 * comes from alert_counts (docs/interaction-counts.md, "Alerts"). Exported for its plan's test.
 */
export function alertsTotalQuery(db: Db, tenantId: string, filters: AlertListFilters, range: DateRange) {
  if (filters.interaction_id) return matchingAlerts(db, tenantId, filters, range).select((eb) => eb.fn.countAll<string>().as('total'));
  return db.selectNoFrom(alertTotal(tenantId, { status: filters.status, severity: filters.severity, policyId: filters.policy_id }, range)
    .as('total'));
}

export async function listAlertRows(db: Db, tenantId: string, filters: AlertListFilters, range: DateRange, request: PageRequest) {
  const paging = KeysetPage.open(request, NEWEST_FIRST, {
    list: 'alerts', status: filters.status, severity: filters.severity, policy_id: filters.policy_id?.toLowerCase(),
    interaction_id: filters.interaction_id?.toLowerCase(), start_date: range.start, end_date: range.end,
  });
  const [rows, count] = await Promise.all([
    paging.apply(matchingAlerts(db, tenantId, filters, range).selectAll()).execute(),
    alertsTotalQuery(db, tenantId, filters, range).executeTakeFirstOrThrow(),
  ]);
  return { ...paging.close(rows), total: Number(count.total) };
}
