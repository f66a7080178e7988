import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { DateRange } from '../../kernel/dates.js';
import type { StatsResponse } from './stats.schemas.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The risk score from which an interaction counts as high risk for `top_users`. */
export const TOP_USERS_RISK = 0.7;
export const TOP_USERS = 10;
/**
 * The bound of the one part of the stats whose cost follows the rows: above this many high-risk
 * interactions in the range, `top_users` is null. At the bound, the statement reads 200,000 index
 * entries: ~100 ms on PostgreSQL on two cores (docs/interactions.md, "Top users").
 */
export const TOP_USERS_MAX_HIGH_RISK = 200_000;

/**
 * The users with the most high-risk interactions in the range (ties by user_id), with their
 * interactions in the range, in one statement. The high-risk rows are read from the partial index
 * interactions_high_risk_user_idx (migration 0012: their timestamp and user_id, nothing else), an
 * index-only scan of the range's high-risk rows grouped by user; each of the ten users' totals is
 * a count through interactions_user_idx. The threshold is a literal: the planner proves the
 * partial index's predicate from it.
 */
export async function topUsers(db: Db, tenantId: string, range: DateRange): Promise<NonNullable<StatsResponse['top_users']>> {
  const { rows } = await topUsersQuery(tenantId, range).execute(db);
  return rows.map((row) => ({ user_id: row.user_id, high_risk: Number(row.high_risk), total: Number(row.total) }));
}

/** The statement of topUsers; exported for its plan's test. */
export function topUsersQuery(tenantId: string, range: DateRange) {
  const within = (alias: string) => sql.join([
    sql`${sql.ref(`${alias}.tenant_id`)} = ${tenantId}`,
    ...(range.start ? [sql`${sql.ref(`${alias}.timestamp`)} >= ${range.start}`] : []),
    ...(range.end ? [sql`${sql.ref(`${alias}.timestamp`)} <= ${range.end}`] : []),
  ], sql` and `);
  return sql<{ user_id: string; high_risk: string | number; total: string | number }>`
    select top.user_id, top.high_risk,
      (select count(*) from interactions a where ${within('a')} and a.user_id = top.user_id) as total
    from (
      select h.user_id, count(*) as high_risk from interactions h
      where ${within('h')} and h.risk_score >= ${sql.lit(TOP_USERS_RISK)} and h.user_id is not null
      group by h.user_id
      order by count(*) desc, h.user_id
      limit ${sql.lit(TOP_USERS)}) as top
    order by top.high_risk desc, top.user_id`;
}
