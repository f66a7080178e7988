import { type RawBuilder, sql } from 'kysely';
import type { LiveInterval } from './rollup-plan.js';

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
 * Per user of the interactions within the intervals, what people at risk and usage count, as the
 * ranking always has: interactions of `risk_score >= 0.7`; interactions with an alert (raised
 * within the intervals too); distinct classification types (by primary key from the interactions:
 * the types table has no index on its timestamp alone); distinct platforms. Columns:
 * user_id, high_risk, violations, types, platforms; and `hour` (of the interaction, counted from
 * 1970-01-01T00:00Z) with `byHour`, the figures then being per user and hour.
 */
export function figuresFromRows(tenantId: string, intervals: readonly LiveInterval[], { byHour = false } = {}): RawBuilder<unknown> {
  const hour = byHour ? sql`, floor(extract(epoch from i.timestamp) / 3600)::int as hour` : sql``;
  const keys = byHour ? sql`user_id, hour` : sql`user_id`;
  const groups = byHour ? sql`1, 2` : sql`1`;
  return sql`
    with people as (
      select i.user_id${hour}, count(*) filter (where i.risk_score >= ${sql.lit(HIGH_RISK)}) as high_risk,
        array_agg(distinct i.platform_id) as platforms
      from interactions i
      where i.tenant_id = ${tenantId} and i.user_id is not null and ${withinAny('i.timestamp', intervals)}
      group by ${groups}),
    violations as (
      select i.user_id${hour}, count(distinct a.interaction_id) as n from alerts a
      join interactions i on i.tenant_id = a.tenant_id and i.id = a.interaction_id
      where a.tenant_id = ${tenantId} and ${withinAny('a.created_at', intervals)} and ${withinAny('i.timestamp', intervals)}
        and i.user_id is not null
      group by ${groups}),
    sensitive as (
      select i.user_id${hour}, array_agg(distinct c.classification_type) as types from interactions i
      join interaction_classification_types c on c.tenant_id = i.tenant_id and c.interaction_id = i.id
      where i.tenant_id = ${tenantId} and ${withinAny('i.timestamp', intervals)} and i.user_id is not null
        and ${withinAny('c.timestamp', intervals)}
      group by ${groups})
    select p.*, coalesce(v.n, 0) as violations, coalesce(s.types, '{}') as types
    from people p left join violations v using (${keys}) left join sensitive s using (${keys})`;
}
