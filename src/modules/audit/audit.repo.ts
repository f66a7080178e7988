import type { Kysely, Selectable } from 'kysely';
import type { AuditLogTable, Database } from '../../kernel/tables/database.js';
import { type Keyset, KeysetPage, sortKey } from '../../kernel/paging/cursor.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import { type DateRange, parseDateRange } from '../../kernel/dates.js';

export interface AuditFilters {
  action?: string | undefined;
  actor_id?: string | undefined;
  start_date?: string | undefined;
  end_date?: string | undefined;
}

export const NEWEST_FIRST: Keyset = { keys: [sortKey.instant('occurred_at'), sortKey.uuid('id')], direction: 'desc' };

export async function listAudit(db: Kysely<Database>, tenantId: string, filters: AuditFilters, request: PageRequest) {
  const range = parseDateRange(filters);
  const paging = KeysetPage.open(request, NEWEST_FIRST, {
    list: 'audit-log', action: filters.action, actor_id: filters.actor_id, start_date: range.start, end_date: range.end,
  });
  const base = filteredAudit(db, tenantId, filters, range);
  const [rows, count] = await Promise.all([
    paging.apply(base.selectAll()).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  const { rows: entries, page } = paging.close(rows);
  return { body: { entries: entries.map(toAuditEntry), total: Number(count.total), next_cursor: page.nextCursor }, page };
}

/** The audit entries of a tenant matching the list's filters. */
export function filteredAudit(db: Kysely<Database>, tenantId: string, filters: AuditFilters, range: DateRange) {
  return db.selectFrom('audit_log').where((eb) => {
    const conditions = [eb('tenant_id', '=', tenantId)];
    if (filters.action) conditions.push(eb('action', '=', filters.action));
    if (filters.actor_id) conditions.push(eb('actor_id', '=', filters.actor_id));
    if (range.start) conditions.push(eb('occurred_at', '>=', range.start));
    if (range.end) conditions.push(eb('occurred_at', '<=', range.end));
    return eb.and(conditions);
  });
}

export function toAuditEntry(row: Selectable<AuditLogTable>) {
  return {
    id: row.id,
    occurred_at: row.occurred_at.toISOString(),
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    actor_label: row.actor_label,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    details: row.details as Record<string, unknown>,
    ip: row.ip,
    request_id: row.request_id,
  };
}
