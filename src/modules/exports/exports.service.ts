import type { Readable } from 'node:stream';
import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { type AuditEntry, type AuditFilters, auditExportPage } from '../audit/audit.service.js';
import { writeAudit } from '../audit/audit.writer.js';
import { parseDateRange } from '../../kernel/dates.js';
import { openPage, pageQuery } from '../interactions/interactions.list.js';
import { toInteractionResponse } from '../interactions/interactions.mapper.js';
import type { InteractionResponse, ListInteractionsFilters } from '../interactions/interactions.schemas.js';
import { listCriteriaOf } from '../interactions/interactions.service.js';
import { type CsvColumn, type ExportFormat, exportFileName, exportStream } from './export-format.js';
import { walkKeyset } from './keyset-walk.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { onlyTenants } from '../../platform/store/tenant-scope.js';

export interface Export {
  fileName: string;
  body: Readable;
}

const json = (value: unknown) => JSON.stringify(value);

const INTERACTION_COLUMNS: CsvColumn<InteractionResponse>[] = [
  { header: 'id', cell: (i) => i.id },
  { header: 'timestamp', cell: (i) => i.timestamp },
  { header: 'platform_id', cell: (i) => i.platform_id },
  { header: 'content_hash', cell: (i) => i.content_hash },
  { header: 'interaction_type', cell: (i) => i.interaction_type },
  { header: 'direction', cell: (i) => i.direction },
  { header: 'source', cell: (i) => i.source },
  { header: 'user_id', cell: (i) => i.user_id },
  { header: 'risk_score', cell: (i) => i.risk_score },
  { header: 'classification_types', cell: (i) => [...new Set(i.classifications.map((c) => c.type))].join(';') },
  { header: 'classifications', cell: (i) => json(i.classifications) },
  { header: 'policy_decisions', cell: (i) => json(i.policy_decisions) },
  { header: 'content_metadata', cell: (i) => json(i.content_metadata) },
];

/**
 * Every interaction the list's filters select, in the list's order, as CSV or NDJSON. The export
 * itself is audited (who, which filters, which format) before the first byte leaves.
 */
export async function exportInteractions(
  deps: Deps, ctx: RequestContext, format: ExportFormat, filters: Omit<ListInteractionsFilters, 'page' | 'limit' | 'cursor'>,
): Promise<Export> {
  const criteria = listCriteriaOf(filters);
  const db = tenantDb(deps, ctx);
  const reads = inFixedScope(await deps.store.reader(), onlyTenants([ctx.tenantId]));
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const records = await walkKeyset(async (request) => {
    const paging = openPage(criteria, request);
    const { rows, page } = paging.close(await pageQuery(reads, ctx.tenantId, criteria, paging).execute());
    return { rows: rows.map((row) => toInteractionResponse(row, keys)), nextCursor: page.nextCursor };
  });
  const now = deps.clock.now();
  await writeAudit(db, ctx, { action: 'interactions.exported', targetType: 'interaction', details: { format, filters } }, now);
  return { fileName: exportFileName('interactions', format, now), body: exportStream(format, records, INTERACTION_COLUMNS) };
}

const AUDIT_COLUMNS: CsvColumn<AuditEntry>[] = [
  { header: 'id', cell: (e) => e.id },
  { header: 'occurred_at', cell: (e) => e.occurred_at },
  { header: 'actor_type', cell: (e) => e.actor_type },
  { header: 'actor_id', cell: (e) => e.actor_id },
  { header: 'actor_label', cell: (e) => e.actor_label },
  { header: 'action', cell: (e) => e.action },
  { header: 'target_type', cell: (e) => e.target_type },
  { header: 'target_id', cell: (e) => e.target_id },
  { header: 'details', cell: (e) => json(e.details) },
  { header: 'ip', cell: (e) => e.ip },
  { header: 'request_id', cell: (e) => e.request_id },
];

/** The audit entries the filters select, newest first, as CSV or NDJSON; audited like any export. */
export async function exportAuditLog(deps: Deps, ctx: RequestContext, format: ExportFormat, filters: AuditFilters): Promise<Export> {
  const range = parseDateRange(filters); // a bad range is refused before anything is written
  const db = tenantDb(deps, ctx);
  // The export's own entry is written first, so that it is part of the file.
  const now = deps.clock.now();
  await writeAudit(db, ctx, { action: 'audit_log.exported', targetType: 'audit_log', details: { format, filters } }, now);
  // Read after the write: the replica serves the pages once it holds the export's own entry.
  const reads = inFixedScope(await deps.store.reader(), onlyTenants([ctx.tenantId]));
  const records = await walkKeyset((request) => auditExportPage(reads, ctx.tenantId, filters, range, request));
  return { fileName: exportFileName('audit-log', format, now), body: exportStream(format, records, AUDIT_COLUMNS) };
}

/** The file is read as the client takes it, after the request's handler returned: its pages carry their tenant. */
const tenantDb = (deps: Deps, ctx: RequestContext) => inFixedScope(deps.store.db, onlyTenants([ctx.tenantId]));
