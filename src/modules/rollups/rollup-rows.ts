import { type RawBuilder, sql } from 'kysely';
import type { LiveInterval } from './rollup-plan.js';
import type { PlatformRowFigures } from './usage-figures.js';

/** The stats' high-risk threshold, as a literal so the planner proves interactions_high_risk_user_idx's predicate. */
export const HIGH_RISK = 0.7;

/** `column` within any of the intervals ([start, end) epoch ms, null unbounded). */
export function withinAny(column: string, intervals: readonly LiveInterval[]): RawBuilder<unknown> {
  if (intervals.length === 0) return sql`false`;
  return sql`(${sql.join(intervals.map((interval) => sql`(${sql.join([
    sql`true`,
    ...(interval.start !== null ? [sql`${sql.ref(column)} >= ${new Date(interval.start)}`] : []),
    ...(interval.end !== null ? [sql`${sql.ref(column)} < ${new Date(interval.end)}`] : []),
  ], sql` and `)})`), sql` or `)})`;
}

/**
 * Per user (or none) and platform of the interactions within the intervals, what people at risk
 * and usage count, as the lists count them: interactions; interactions of `risk_score >= 0.7`;
 * interactions with an alert (alerts are created with their interaction's timestamp, so an alert
 * of an interaction of the period is of the period); distinct classification types. Columns:
 * user_id (null for interactions without one), platform_id, interactions, high_risk, violations,
 * types; and `slot` (the interaction's slot of `slotMinutes`, counted from 1970-01-01T00:00Z)
 * with `slotMinutes`, the figures then being per user, platform and slot.
 *
 * One scan of the interactions; each row's alert and types are looked up by its id (a lateral
 * subquery the planner cannot turn into a join), and one grouping adds them up. Nothing here
 * depends on the planner's estimates, which are ~0 rows for the hours since the last ANALYZE
 * and once led it to nested loops between per-user aggregates (minutes for one day's hours).
 */
export function figuresFromRows(tenantId: string, intervals: readonly LiveInterval[], { slotMinutes }: { slotMinutes?: number } = {}): RawBuilder<unknown> {
  const slot = slotMinutes ? sql`, floor(extract(epoch from i.timestamp) / ${sql.lit(slotMinutes * 60)})::int as slot` : sql``;
  return sql`
    select i.user_id, i.platform_id${slot},
      count(*) filter (where x.kind = 0) as interactions,
      count(*) filter (where x.kind = 0 and i.risk_score >= ${sql.lit(HIGH_RISK)}) as high_risk,
      count(*) filter (where x.kind = 1) as violations,
      coalesce(array_agg(distinct x.label) filter (where x.kind = 2), '{}') as types
    from interactions i
    cross join lateral (
      select 0 as kind, null as label
      union all
      select 1, null where exists (select 1 from alerts a where a.tenant_id = i.tenant_id and a.interaction_id = i.id)
      union all
      select 2, c.classification_type from interaction_classification_types c
      where c.tenant_id = i.tenant_id and c.interaction_id = i.id) x
    where i.tenant_id = ${tenantId} and ${withinAny('i.timestamp', intervals)}
    group by ${slotMinutes ? sql`1, 2, 3` : sql`1, 2`}`;
}

/** A row of figuresFromRows with the user's number (null without a user), numbers as PostgreSQL sends them. */
export type FigureRow = {
  n: number | null; slot?: number; user_id: string | null; platform_id: string;
  interactions: string | number; high_risk: string | number; violations: string | number; types: string[];
};

export const platformRowOf = (row: FigureRow): PlatformRowFigures => ({
  n: row.n, user_id: row.user_id, platform_id: row.platform_id, interactions: Number(row.interactions),
  high_risk: Number(row.high_risk), violations: Number(row.violations), types: row.types,
});
