import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Page } from '../../lib/pagination.js';
import { parseDateRange } from '../interactions/dates.js';

export interface AuditFilters {
  action?: string | undefined;
  actor_id?: string | undefined;
  start_date?: string | undefined;
  end_date?: string | undefined;
}

export async function listAudit(db: Kysely<Database>, tenantId: string, filters: AuditFilters, page: Page) {
  const range = parseDateRange(filters);
  const base = db.selectFrom('audit_log').where((eb) => {
    const conditions = [eb('tenant_id', '=', tenantId)];
    if (filters.action) conditions.push(eb('action', '=', filters.action));
    if (filters.actor_id) conditions.push(eb('actor_id', '=', filters.actor_id));
    if (range.start) conditions.push(eb('occurred_at', '>=', range.start));
    if (range.end) conditions.push(eb('occurred_at', '<=', range.end));
    return eb.and(conditions);
  });
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    entries: rows.map((row) => ({
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
    })),
    total: Number(count.total),
  };
}
