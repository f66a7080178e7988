import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { DateRange } from '../../kernel/dates.js';
import type { LiveInterval } from '../rollups/rollup-plan.js';
import { addRollups, planOf, userIdsOfNumbers } from '../rollups/rollup-read.js';
import { HIGH_RISK, withinAny } from '../rollups/rollup-rows.js';
import { UsageFigures } from '../rollups/usage-figures.js';
import type { StatsResponse } from './stats.schemas.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The risk score from which an interaction counts as high risk for `top_users`. */
export const TOP_USERS_RISK = HIGH_RISK;
export const TOP_USERS = 10;
/**
 * Above this many high-risk interactions in the range, `top_users` is null: the part of the range
 * not rolled up yet is read from the rows, and right after an upgrade or a bulk load that can be
 * all of it. At the bound that read takes ~100 ms on PostgreSQL on two cores (docs/interactions.md, "Top users").
 */
export const TOP_USERS_MAX_HIGH_RISK = 200_000;
/**
 * Up to this many high-risk interactions in the range, one statement over their rows is cheaper
 * than the roll-ups' few (~25 ms at the threshold on two cores, against ~35 ms for the roll-ups whatever the range).
 */
export const TOP_USERS_FROM_ROLLUPS_ABOVE = 50_000;

/** The range's rows of `alias` (tenant and timestamps). */
const within = (alias: string, tenantId: string, range: DateRange) => sql.join([
  sql`${sql.ref(`${alias}.tenant_id`)} = ${tenantId}`,
  ...(range.start ? [sql`${sql.ref(`${alias}.timestamp`)} >= ${range.start}`] : []),
  ...(range.end ? [sql`${sql.ref(`${alias}.timestamp`)} <= ${range.end}`] : []),
], sql` and `);

/**
 * The users with the most high-risk interactions in the range (ties by user_id), with their
 * interactions in the range, in one statement. The high-risk rows are read from the partial index
 * interactions_high_risk_user_idx (migration 0012: their timestamp and user_id, nothing else), an
 * index-only scan of the range's high-risk rows grouped by user; each of the ten users' totals is
 * a count through interactions_user_idx. The threshold is a literal: the planner proves the
 * partial index's predicate from it.
 */
export async function topUsersFromRows(db: Db, tenantId: string, range: DateRange): Promise<NonNullable<StatsResponse['top_users']>> {
  const { rows } = await topUsersQuery(tenantId, range).execute(db);
  return rows.map((row) => ({ user_id: row.user_id, high_risk: Number(row.high_risk), total: Number(row.total) }));
}

/** The statement of topUsersFromRows; exported for its plan's test. */
export function topUsersQuery(tenantId: string, range: DateRange) {
  return sql<{ user_id: string; high_risk: string | number; total: string | number }>`
    select top.user_id, top.high_risk,
      (select count(*) from interactions a where ${within('a', tenantId, range)} and a.user_id = top.user_id) as total
    from (
      select h.user_id, count(*) as high_risk from interactions h
      where ${within('h', tenantId, range)} and h.risk_score >= ${sql.lit(TOP_USERS_RISK)} and h.user_id is not null
      group by h.user_id
      order by count(*) desc, h.user_id
      limit ${sql.lit(TOP_USERS)}) as top
    order by top.high_risk desc, top.user_id`;
}

interface Candidate {
  n: number;
  user_id: string | null;
  high_risk: number;
}

/**
 * The same as topUsersFromRows, for a range of many high-risk interactions: each user's come from
 * the usage roll-ups of the range's clean closed days and slots (rollups/rollup-read.ts), and from
 * the rows of the rest (the partial index interactions_high_risk_user_idx); then the ten users' totals through
 * interactions_user_idx. One repeatable-read transaction: the roll-ups, their dirty marks and the
 * rows are one snapshot, so no interaction is counted twice or missed.
 */
export async function topUsersFromRollups(
  db: Kysely<Database>, tenantId: string, range: DateRange,
): Promise<NonNullable<StatsResponse['top_users']>> {
  return db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
    const plan = await planOf(tx, tenantId, range);
    const figures = new UsageFigures();
    await Promise.all([addRollups(tx, tenantId, plan, figures, 'high_risk'), addHighRiskRows(tx, tenantId, plan.live, figures)]);
    const { numbered, unnumbered } = figures.perUser(() => false);
    const people: Candidate[] = [
      ...numbered.map(({ n, high_risk }) => ({ n, user_id: null, high_risk })),
      ...unnumbered.map(({ user_id, high_risk }) => ({ n: -1, user_id, high_risk })),
    ].filter((person) => person.high_risk > 0).sort((a, b) => b.high_risk - a.high_risk);
    const top = await firstTen(tx, tenantId, people);
    const totals = await totalsOf(tx, tenantId, range, top.map((person) => person.user_id));
    return top.map((person) => ({ user_id: person.user_id, high_risk: person.high_risk, total: totals.get(person.user_id) ?? 0 }));
  });
}

/**
 * The first ten by high-risk interactions, ties by user_id: the user ids are read for those who
 * can be among them (the first ten and whoever ties with the tenth), more if some have none (erased).
 */
async function firstTen(db: Db, tenantId: string, people: readonly Candidate[]): Promise<Array<Candidate & { user_id: string }>> {
  for (let take = TOP_USERS; ; take += TOP_USERS) {
    const lowest = take < people.length ? people[take - 1]!.high_risk : 0;
    const candidates = people.filter((person) => person.high_risk >= lowest);
    const ids = await userIdsOfNumbers(db, tenantId, candidates.filter((person) => person.user_id === null).map((person) => person.n));
    const known = candidates.flatMap((person) => {
      const userId = person.user_id ?? ids.get(person.n);
      return userId === undefined ? [] : [{ ...person, user_id: userId }];
    }).sort((a, b) => b.high_risk - a.high_risk || (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0));
    if (known.length >= TOP_USERS || candidates.length === people.length) return known.slice(0, TOP_USERS);
  }
}

/** Adds each user's high-risk interactions within the intervals, from the rows, with the user's number when it has one. */
async function addHighRiskRows(db: Db, tenantId: string, live: readonly LiveInterval[], figures: UsageFigures) {
  if (live.length === 0) return;
  const { rows } = await highRiskRowsQuery(tenantId, live).execute(db);
  for (const row of rows) {
    figures.addRow({ n: row.n, user_id: row.user_id, high_risk: Number(row.high_risk), violations: 0, types: [], platforms: [] });
  }
}

/**
 * The statement of addHighRiskRows; exported for its plan's test. The threshold is a literal:
 * the planner proves the partial index's predicate from it.
 */
export function highRiskRowsQuery(tenantId: string, live: readonly LiveInterval[]) {
  return sql<{ user_id: string; n: number | null; high_risk: string | number }>`
    select p.user_id, u.n, p.high_risk from (
      select h.user_id, count(*) as high_risk from interactions h
      where h.tenant_id = ${tenantId} and ${withinAny('h.timestamp', live)}
        and h.risk_score >= ${sql.lit(TOP_USERS_RISK)} and h.user_id is not null
      group by h.user_id) p
    left join usage_rollup_users u on u.tenant_id = ${tenantId} and u.user_id = p.user_id`;
}

/** Each user's interactions in the range, through interactions_user_idx. */
async function totalsOf(db: Db, tenantId: string, range: DateRange, userIds: readonly string[]): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map();
  const { rows } = await sql<{ user_id: string; total: string | number }>`
    select u.user_id, (select count(*) from interactions a where ${within('a', tenantId, range)} and a.user_id = u.user_id) as total
    from unnest(${userIds}::uuid[]) as u(user_id)`.execute(db);
  return new Map(rows.map((row) => [row.user_id, Number(row.total)]));
}
