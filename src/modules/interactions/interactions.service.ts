import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { AppError, notFound, validationError } from '../../kernel/errors.js';
import { isUuid } from '../../kernel/ids.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import { writeAudit } from '../audit/audit.writer.js';
import { parseDateRange } from '../../kernel/dates.js';
import { type CreateResponse, findReplay, fingerprintOf, type IdempotentRequest } from './ingest/idempotency.js';
import type { IngestPipeline, IngestRequest } from './ingest/pipeline.js';
import { toInteractionResponse } from './interactions.mapper.js';
import { revealClassifications } from './detected-values.js';
import { deleteInteractionRow, findInteraction, searchQuery } from './interactions.repo.js';
import { type ListCriteria, openPage, pageQuery } from './interactions.list.js';
import { countInteractions } from './interactions.totals.js';
import { PLATFORM_ID_PATTERN } from '../../kernel/vocabulary.js';
import type { ListInteractionsFilters, SearchFilters } from './interactions.schemas.js';
import { parseInteraction } from './interactions.validation.js';

/** A single create: 201 with the stored interaction, or 400 with what is wrong (nothing stored). */
export async function createInteraction(
  deps: Deps, ingest: IngestPipeline, ctx: RequestContext, body: unknown, idempotencyKey: string | undefined,
): Promise<CreateResponse> {
  const parsed = parseInteraction(body);
  if (!parsed.ok) {
    const [first] = parsed.details;
    throw new AppError('validation_error', `Invalid request: ${first!.path} ${first!.message}`, { details: parsed.details });
  }
  return ingestOrReplay(deps, ingest, {
    tenantId: ctx.tenantId,
    inputs: [parsed.value],
    respond: ([interaction]) => ({ status: 201, body: interaction }),
    credentialsVersion: ctx.credentialsVersion,
    idempotency: keyed(ctx, idempotencyKey, () => fingerprintOf('interactions.create', parsed.value)),
  });
}

/** A batch: invalid items are skipped silently; the valid ones are stored as single creates would be. */
export async function createBatch(
  deps: Deps, ingest: IngestPipeline, ctx: RequestContext, items: readonly unknown[], idempotencyKey: string | undefined,
): Promise<CreateResponse> {
  const parsed = items.map(parseInteraction);
  return ingestOrReplay(deps, ingest, {
    tenantId: ctx.tenantId,
    inputs: parsed.flatMap((result) => (result.ok ? [result.value] : [])),
    respond: (stored) => ({ status: 200, body: { received: items.length, stored: stored.length } }),
    credentialsVersion: ctx.credentialsVersion,
    // Invalid items count only by position: they store nothing, so they cannot make a retry differ.
    idempotency: keyed(ctx, idempotencyKey,
      () => fingerprintOf('interactions.batch', parsed.map((result) => (result.ok ? result.value : null)))),
  });
}

function keyed(ctx: RequestContext, key: string | undefined, fingerprint: () => string): IdempotentRequest | undefined {
  return key === undefined ? undefined : { tenantId: ctx.tenantId, key, fingerprint: fingerprint() };
}

/** A create whose key is live replays at once, storing nothing; every other one joins the next group commit. */
async function ingestOrReplay(deps: Deps, ingest: IngestPipeline, request: IngestRequest): Promise<CreateResponse> {
  if (request.idempotency) {
    const keys = await deps.keyring.forTenant(request.tenantId);
    const replayed = await findReplay(deps.store.db, request.idempotency, deps.clock.now(), keys);
    if (replayed) return replayed;
  }
  return ingest.submit(request);
}

/** A list's filters, normalised and checked (the list and the export share them). */
export function listCriteriaOf(filters: Omit<ListInteractionsFilters, 'page' | 'limit' | 'cursor'>): ListCriteria {
  const { start_date: _start, end_date: _end, ...criteria } = filters;
  if (criteria.platform_id !== undefined) criteria.platform_id = normalisePlatformFilter(criteria.platform_id);
  if (criteria.risk_score_min !== undefined && criteria.risk_score_max !== undefined &&
    criteria.risk_score_min > criteria.risk_score_max) {
    throw validationError('query.risk_score_min', 'must not be greater than risk_score_max');
  }
  return { ...criteria, user_id: criteria.user_id?.toLowerCase(), range: parseDateRange(filters) };
}

export async function listInteractions(deps: Deps, ctx: RequestContext, filters: ListInteractionsFilters, request: PageRequest) {
  const { page: _page, limit: _limit, cursor: _cursor, ...criteria } = filters;
  const listCriteria = listCriteriaOf(criteria);
  const paging = openPage(listCriteria, request);
  const db = await deps.store.reader();
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const [rows, total] = await Promise.all([
    pageQuery(db, ctx.tenantId, listCriteria, paging).execute(),
    countInteractions(db, ctx.tenantId, listCriteria),
  ]);
  const { rows: pageRows, page } = paging.close(rows);
  return {
    body: { data: pageRows.map((row) => toInteractionResponse(row, keys)), total, limit: page.limit, offset: page.offset, next_cursor: page.nextCursor },
    page,
  };
}

export async function getInteraction(deps: Deps, ctx: RequestContext, interactionId: string) {
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const row = isUuid(interactionId) ? await findInteraction(deps.store.db, ctx.tenantId, interactionId) : undefined;
  if (!row) throw notFound('Interaction');
  return toInteractionResponse(row, keys);
}

export async function searchInteractions(deps: Deps, ctx: RequestContext, query: SearchFilters) {
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const rows = await searchQuery(await deps.store.reader(), ctx.tenantId, query.content_hash.toLowerCase(),
    parseDateRange(query), query.limit).execute();
  return rows.map((row) => ({
    id: row.id,
    platform_id: row.platform_id,
    content_hash: row.content_hash,
    timestamp: row.timestamp.toISOString(),
    risk_score: row.risk_score,
    classifications: revealClassifications(keys, row.classifications),
  }));
}

/** Irreversible; the audit log keeps who deleted which interaction and its content hash. Alerts stay. */
export async function deleteInteraction(deps: Deps, ctx: RequestContext, interactionId: string): Promise<void> {
  if (!isUuid(interactionId)) throw notFound('Interaction');
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (tx) => {
    const deleted = await deleteInteractionRow(tx, ctx.tenantId, interactionId);
    if (!deleted) throw notFound('Interaction');
    await writeAudit(tx, ctx, {
      action: 'interaction.deleted', targetType: 'interaction', targetId: deleted.id,
      details: { content_hash: deleted.content_hash, platform_id: deleted.platform_id },
    }, now);
  });
}

/** The filter is normalised like the stored value, so `OpenAI` finds `openai`. */
function normalisePlatformFilter(value: string): string {
  const platformId = value.trim().toLowerCase();
  if (!PLATFORM_ID_PATTERN.test(platformId)) throw validationError('query.platform_id', 'is not a valid platform id');
  return platformId;
}
