import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Deps } from '../../deps.js';
import type { RequestContext } from '../../lib/context.js';
import { type DateRange, parseDateRange } from '../interactions/dates.js';
import type { Severity, Source } from '../interactions/interactions.tables.js';
import type { StatsFilters, StatsResponse } from './stats.schemas.js';

const TOP = 100;
const BANDS = [[0, 0.2], [0.2, 0.4], [0.4, 0.6], [0.6, 0.8], [0.8, 1]] as const;
// Bands are [min, max) except the last, [0.8, 1]: the same comparisons as the list's risk filters.
const BAND_OF_RISK = sql<number>`case when risk_score < 0.2 then 0 when risk_score < 0.4 then 1
  when risk_score < 0.6 then 2 when risk_score < 0.8 then 3 else 4 end`;

/** The dashboard's counts over interactions (and their open alerts) created within the range. */
export async function getStats(deps: Deps, ctx: RequestContext, filters: StatsFilters): Promise<StatsResponse> {
  const range = parseDateRange(filters);
  const db = deps.store.db;
  const [sourceBands, platforms, types, severities] = await Promise.all([
    countBySourceAndBand(db, ctx.tenantId, range),
    countByPlatform(db, ctx.tenantId, range),
    countByClassificationType(db, ctx.tenantId, range),
    countOpenAlertsBySeverity(db, ctx.tenantId, range),
  ]);
  const bySource: Record<Source, number> = { browser_extension: 0, proxy: 0, endpoint_agent: 0, api: 0 };
  const byBand = BANDS.map(() => 0);
  for (const row of sourceBands) {
    bySource[row.source] += Number(row.count);
    byBand[Number(row.band)]! += Number(row.count);
  }
  const bySeverity: Record<Severity, number> = { low: 0, medium: 0, high: 0, critical: 0 };
  for (const row of severities) bySeverity[row.severity] = Number(row.count);
  return {
    start_date: range.start?.toISOString() ?? null,
    end_date: range.end?.toISOString() ?? null,
    interactions: {
      total: Object.values(bySource).reduce((sum, n) => sum + n, 0),
      by_platform: platforms.map((row) => ({ platform_id: row.platform_id, count: Number(row.count) })),
      by_source: bySource,
      by_risk_band: BANDS.map(([min, max], i) => ({ band: `${min}-${max}`, min, max, count: byBand[i]! })),
      by_classification_type: types.map((row) => ({ type: row.classification_type, count: Number(row.count) })),
    },
    alerts: { open: Object.values(bySeverity).reduce((sum, n) => sum + n, 0), open_by_severity: bySeverity },
  };
}

function interactionsIn(db: Kysely<Database>, tenantId: string, range: DateRange) {
  let query = db.selectFrom('interactions').where('tenant_id', '=', tenantId);
  if (range.start) query = query.where('timestamp', '>=', range.start);
  if (range.end) query = query.where('timestamp', '<=', range.end);
  return query;
}

function countBySourceAndBand(db: Kysely<Database>, tenantId: string, range: DateRange) {
  return interactionsIn(db, tenantId, range)
    .select((eb) => ['source', BAND_OF_RISK.as('band'), eb.fn.countAll<number>().as('count')])
    .groupBy(['source', sql`2`])
    .execute();
}

function countByPlatform(db: Kysely<Database>, tenantId: string, range: DateRange) {
  return interactionsIn(db, tenantId, range)
    .select((eb) => ['platform_id', eb.fn.countAll<number>().as('count')])
    .groupBy('platform_id')
    .orderBy(sql`count(*)`, 'desc').orderBy('platform_id')
    .limit(TOP)
    .execute();
}

function countByClassificationType(db: Kysely<Database>, tenantId: string, range: DateRange) {
  let query = db.selectFrom('interaction_classification_types').where('tenant_id', '=', tenantId);
  if (range.start) query = query.where('timestamp', '>=', range.start);
  if (range.end) query = query.where('timestamp', '<=', range.end);
  return query
    .select((eb) => ['classification_type', eb.fn.countAll<number>().as('count')])
    .groupBy('classification_type')
    .orderBy(sql`count(*)`, 'desc').orderBy('classification_type')
    .limit(TOP)
    .execute();
}

function countOpenAlertsBySeverity(db: Kysely<Database>, tenantId: string, range: DateRange) {
  let query = db.selectFrom('alerts').where('tenant_id', '=', tenantId).where('status', '=', 'open');
  if (range.start) query = query.where('created_at', '>=', range.start);
  if (range.end) query = query.where('created_at', '<=', range.end);
  return query.select((eb) => ['severity', eb.fn.countAll<number>().as('count')]).groupBy('severity').execute();
}
