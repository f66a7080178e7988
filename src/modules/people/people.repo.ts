import { type Kysely, type RawBuilder, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { DateRange } from '../../kernel/dates.js';
import { type Keyset, type KeysetPage, sortKey } from '../../kernel/paging/cursor.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The stats' high-risk threshold, as a literal so the planner proves interactions_high_risk_user_idx's predicate. */
const HIGH_RISK = 0.7;

/** The weights of the score (docs/platforms.md, "People at risk"). */
export const SCORE_WEIGHTS = { high_risk: 1, violations: 2, sensitive_types: 5, unsanctioned_platforms: 10 } as const;

/** Highest score first, ties by user_id (descending: a keyset reads its keys in one direction). */
export const PEOPLE_ORDER: Keyset = {
  keys: [sortKey.number('ranked.score', [0, Number.MAX_SAFE_INTEGER]), sortKey.uuid('ranked.user_id')],
  direction: 'desc',
};

export interface RankedRow {
  user_id: string;
  score: string | number;
  high_risk: string | number;
  violations: string | number;
  sensitive_types: string | number;
  unsanctioned_platforms: string | number;
  total: string | number;
}

/**
 * Every person with a score above zero in the range, as a derived table `ranked` with the page's
 * keyset applied (the total of the whole ranking on each row), in one statement. What it reads:
 * - high_risk: interactions_high_risk_user_idx, an index-only range scan of the range's
 *   interactions of `risk_score >= 0.7` with a user, grouped by user;
 * - violations: alerts_created_idx over the range's alerts (raised by block and coach decisions),
 *   each joined to its interaction by primary key for the user, counted once per interaction;
 * - sensitive_types: interaction_classification_types over the range (each classified
 *   interaction's types), joined to the interaction by primary key for the user;
 * - unsanctioned_platforms: for each platform of `platformIds` (used in the range, not sanctioned),
 *   a loose index scan of interactions_platform_user_idx: the platform's users one probe each,
 *   and one probe on (user_id, timestamp) for whether each used it within the range.
 * So its cost follows the range's high-risk, alerted and classified interactions and the platforms'
 * users, never the range's other interactions; the service bounds it (people.service.ts).
 */
export function rankedPeople(db: Db, tenantId: string, range: DateRange, platformIds: readonly string[], page: KeysetPage) {
  const within = (column: string): RawBuilder<unknown> => sql.join([
    sql`true`,
    ...(range.start ? [sql`${sql.ref(column)} >= ${range.start}`] : []),
    ...(range.end ? [sql`${sql.ref(column)} <= ${range.end}`] : []),
  ], sql` and `);
  const bounded = range.start !== undefined || range.end !== undefined;
  const w = SCORE_WEIGHTS;
  const ranked = sql<RankedRow>`(
    with high_risk as (
      select h.user_id, count(*) as n from interactions h
      where h.tenant_id = ${tenantId} and ${within('h.timestamp')} and h.risk_score >= ${sql.lit(HIGH_RISK)} and h.user_id is not null
      group by h.user_id),
    violations as (
      select i.user_id, count(distinct a.interaction_id) as n from alerts a
      join interactions i on i.tenant_id = a.tenant_id and i.id = a.interaction_id
      where a.tenant_id = ${tenantId} and ${within('a.created_at')} and ${within('i.timestamp')} and i.user_id is not null
      group by i.user_id),
    sensitive as (
      select i.user_id, count(distinct c.classification_type) as n from interaction_classification_types c
      join interactions i on i.tenant_id = c.tenant_id and i.id = c.interaction_id
      where c.tenant_id = ${tenantId} and ${within('c.timestamp')} and i.user_id is not null
      group by i.user_id),
    unsanctioned as (
      select u.user_id, count(*) as n from unnest(${[...platformIds]}::text[]) as p(platform_id)
      cross join lateral (
        with recursive walk(user_id) as (
          (select f.user_id from interactions f
           where f.tenant_id = ${tenantId} and f.platform_id = p.platform_id and f.user_id is not null order by f.user_id limit 1)
          union all
          select (select n.user_id from interactions n
                  where n.tenant_id = ${tenantId} and n.platform_id = p.platform_id and n.user_id is not null and n.user_id > walk.user_id
                  order by n.user_id limit 1)
          from walk where walk.user_id is not null)
        select walk.user_id from walk
        where walk.user_id is not null ${bounded ? sql`and exists (select 1 from interactions e
          where e.tenant_id = ${tenantId} and e.platform_id = p.platform_id and e.user_id = walk.user_id and ${within('e.timestamp')})` : sql``}
      ) as u
      group by u.user_id),
    figures as (
      select user_id, sum(high_risk) as high_risk, sum(violations) as violations, sum(sensitive_types) as sensitive_types,
        sum(unsanctioned_platforms) as unsanctioned_platforms
      from (
        select user_id, n as high_risk, 0 as violations, 0 as sensitive_types, 0 as unsanctioned_platforms from high_risk
        union all select user_id, 0, n, 0, 0 from violations
        union all select user_id, 0, 0, n, 0 from sensitive
        union all select user_id, 0, 0, 0, n from unsanctioned) as all_figures
      group by user_id)
    select user_id, high_risk, violations, sensitive_types, unsanctioned_platforms,
      (${w.high_risk} * high_risk + ${w.violations} * violations + ${w.sensitive_types} * sensitive_types
        + ${w.unsanctioned_platforms} * unsanctioned_platforms)::float8 as score,
      count(*) over () as total
    from figures)`;
  return page.apply(db.selectFrom(ranked.as('ranked')).selectAll());
}
