import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { DEFAULT_PLATFORM_STATUS, PLATFORM_ID_PATTERN } from '../../kernel/vocabulary.js';
import { writeAudit } from '../audit/audit.writer.js';
import { CATALOG, type CatalogEntry, catalogEntry } from './platforms.catalog.js';
import {
  type PlatformStatusRow, findStatusForUpdate, hasSeenPlatform, listStatusRows, seenPlatformIds, upsertStatus,
} from './platforms.repo.js';
import type { PlatformResponse, PlatformUsage, SetPlatformStatusInput, UsageFilters } from './platforms.schemas.js';
import { mostUsed, reachByPlatform } from './platforms.usage.js';
import { periodFigures } from '../rollups/rollup-read.js';
import { parseDateRange } from '../../kernel/dates.js';

const OVERRIDES = ['name', 'category', 'risk_tier'] as const;
const CHANGEABLE = ['status', 'note', ...OVERRIDES] as const;

/**
 * The catalog and the platforms of the tenant it lacks (seen in its interactions, or given a
 * status), each with the tenant's status and overrides, by id.
 */
export async function listPlatforms(deps: Deps, ctx: RequestContext): Promise<{ platforms: PlatformResponse[]; total: number }> {
  const [rows, seen] = await Promise.all([listStatusRows(deps.store.db, ctx.tenantId), seenPlatformIds(deps.store.db, ctx.tenantId)]);
  const statuses = new Map(rows.map((row) => [row.platform_id, row]));
  const ids = new Set([...CATALOG.map((entry) => entry.id), ...seen, ...statuses.keys()]);
  const platforms = [...ids].sort().map((id) => toPlatformResponse(id, catalogEntry(id), statuses.get(id)));
  return { platforms, total: platforms.length };
}

/**
 * Each platform used in the period, with its interactions, distinct users, high-risk interactions,
 * first and last interaction, and the tenant's status; most used first. The counts and users come
 * from the roll-ups and the rows of the rest (rollups/rollup-read.ts), first and last from index
 * probes (platforms.usage.ts), all in one snapshot so the figures agree with each other while
 * interactions are written.
 */
export async function platformUsage(deps: Deps, ctx: RequestContext, filters: UsageFilters) {
  const range = parseDateRange(filters);
  const db = await deps.store.reader();
  const [{ counts, reach }, statuses] = await Promise.all([
    db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
      const figures = await periodFigures(tx, ctx.tenantId, range, 'platforms');
      const counted = mostUsed(figures.platformTotals());
      return { counts: counted, reach: await reachByPlatform(tx, ctx.tenantId, counted.map((row) => row.platform_id), range, figures) };
    }),
    listStatusRows(db, ctx.tenantId),
  ]);
  const reachOf = new Map(reach.map((row) => [row.platform_id, row]));
  const statusOf = new Map(statuses.map((row) => [row.platform_id, row.status]));
  const platforms: PlatformUsage[] = counts.flatMap((row) => {
    const seen = reachOf.get(row.platform_id);
    if (!seen) return [];
    return [{
      platform_id: row.platform_id, interactions: row.interactions, users: seen.users, high_risk: row.high_risk,
      first_seen: seen.first_seen.toISOString(), last_seen: seen.last_seen.toISOString(),
      status: statusOf.get(row.platform_id) ?? DEFAULT_PLATFORM_STATUS,
    }];
  });
  return {
    start_date: range.start?.toISOString() ?? null, end_date: range.end?.toISOString() ?? null, platforms, total: platforms.length,
  };
}

/**
 * Sets the tenant's status of a platform of the catalog or of its own interactions (another id
 * is 404), with its note and overrides; audited. A change bumps the tenant's policies counter (by
 * trigger), so policies on `platform_statuses` apply it to the next create on every replica. A
 * request that changes nothing writes nothing.
 */
export async function setPlatformStatus(
  deps: Deps, ctx: RequestContext, rawId: string, input: SetPlatformStatusInput,
): Promise<PlatformResponse> {
  const platformId = rawId.trim().toLowerCase();
  if (!PLATFORM_ID_PATTERN.test(platformId)) throw notFound('Platform');
  const entry = catalogEntry(platformId);
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const current = await findStatusForUpdate(tx, ctx.tenantId, platformId);
    if (!current && !entry && !(await hasSeenPlatform(tx, ctx.tenantId, platformId))) throw notFound('Platform');
    const before = stateOf(current);
    const after = {
      status: input.status,
      note: input.note ?? before.note,
      name: input.name === undefined ? before.name : input.name,
      category: input.category === undefined ? before.category : input.category,
      risk_tier: input.risk_tier === undefined ? before.risk_tier : input.risk_tier,
    };
    const changed = CHANGEABLE.filter((field) => before[field] !== after[field]);
    if (changed.length === 0) return toPlatformResponse(platformId, entry, current);
    const row = await upsertStatus(tx, {
      tenant_id: ctx.tenantId, platform_id: platformId, ...after, updated_at: now,
      updated_by: ctx.actor.type === 'user' ? ctx.actor.id : null,
    });
    await writeAudit(tx, ctx, {
      action: 'platform.updated', targetType: 'platform', targetId: platformId,
      details: Object.fromEntries(changed.map((field) => [field, { from: before[field], to: after[field] }])),
    }, now);
    return toPlatformResponse(platformId, entry, row);
  });
}

/** What a tenant has set on a platform; a platform without a row has the defaults. */
function stateOf(row: PlatformStatusRow | undefined) {
  return {
    status: row?.status ?? DEFAULT_PLATFORM_STATUS,
    note: row?.note ?? '',
    name: row?.name ?? null,
    category: row?.category ?? null,
    risk_tier: row?.risk_tier ?? null,
  };
}

function toPlatformResponse(id: string, entry: CatalogEntry | undefined, row: PlatformStatusRow | undefined): PlatformResponse {
  const state = stateOf(row);
  return {
    id,
    name: state.name ?? entry?.name ?? null,
    vendor: entry?.vendor ?? null,
    category: state.category ?? entry?.category ?? null,
    domains: entry?.domains ?? [],
    risk_tier: state.risk_tier ?? entry?.risk_tier ?? null,
    trains_on_inputs: entry?.trains_on_inputs ?? null,
    data_regions: entry?.data_regions ?? [],
    sources: entry?.sources ?? [],
    status: state.status,
    note: state.note,
    overridden: OVERRIDES.filter((field) => state[field] !== null),
    catalog: entry !== undefined,
    updated_at: row ? row.updated_at.toISOString() : null,
  };
}
