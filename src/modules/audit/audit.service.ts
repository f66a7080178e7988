import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { DateRange } from '../../kernel/dates.js';
import { KeysetPage } from '../../kernel/paging/cursor.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import { type AuditFilters, filteredAudit, NEWEST_FIRST, toAuditEntry } from './audit.repo.js';

export type { AuditFilters };
export type AuditEntry = ReturnType<typeof toAuditEntry>;

/** One keyset page of the entries the filters select, newest first: what an export walks through. */
export async function auditExportPage(
  db: Kysely<Database>, tenantId: string, filters: AuditFilters, range: DateRange, request: PageRequest,
): Promise<{ rows: AuditEntry[]; nextCursor: string | null }> {
  const paging = KeysetPage.open(request, NEWEST_FIRST, { list: 'audit-log-export' });
  const query = filteredAudit(db, tenantId, filters, range).selectAll();
  const { rows, page } = paging.close(await paging.apply(query).execute());
  return { rows: rows.map(toAuditEntry), nextCursor: page.nextCursor };
}
