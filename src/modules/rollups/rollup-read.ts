import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { DateRange } from '../../kernel/dates.js';
import { DAY_MS, HOUR_MS, type LiveInterval, type RollupPlan, SLOT_LENGTHS, planPeriod, wholeDays } from './rollup-plan.js';
import { type FigureRow, HIGH_RISK, figuresFromRows, platformRowOf, withinAny } from './rollup-rows.js';
import { UsageFigures } from './usage-figures.js';

type Db = Kysely<Database> | Transaction<Database>;

const MAX_INT = 2 ** 31 - 1;

/**
 * Reads a period's users figures from the roll-ups and the rows (docs/platforms.md, "Roll-ups").
 * Run in one repeatable-read transaction: the roll-ups, the dirty marks and the rows are then one
 * snapshot, in which every day is either in a clean roll-up or counted from its rows, never both.
 */
export async function planOf(db: Db, tenantId: string, range: DateRange): Promise<RollupPlan> {
  const { first, last } = wholeDays(range);
  const days = (column: string, from: number | null, to: number | null) => sql.join([
    sql`true`,
    ...(from !== null ? [sql`${sql.ref(column)} >= date '1970-01-01' + ${from}::int`] : []),
    ...(to !== null ? [sql`${sql.ref(column)} <= date '1970-01-01' + ${to}::int`] : []),
  ], sql` and `);
  const dayOf = (date: Date | undefined) => (date ? Math.floor(date.getTime() / DAY_MS) : null);
  // Slots matter only where no longer roll-up answers: hours and blocks of hours at the period's
  // partial first day and after the last day rolled up within it; 5-minute slots and their blocks
  // at its partial first hour and after the last hour rolled up. One index range per length and
  // part, from a list of them (a statement of one branch, whatever the number of lengths).
  const firstWholeHour = range.start ? Math.ceil(range.start.getTime() / HOUR_MS) : null;
  const dayTail = sql`(select coalesce(max(d.start_day - date '1970-01-01') + 1, ${first ?? 0}::int)::bigint * ${DAY_MS} from usage_rollups d
    where d.tenant_id = ${tenantId} and d.level = 0 and ${days('d.start_day', first, last)})`;
  const hourTail = sql`(select coalesce(max(h.slot) + 1, ${firstWholeHour ?? 0}::int)::bigint * ${HOUR_MS} from usage_rollup_slots h
    where ${sql.join([sql`h.tenant_id = ${tenantId}`, sql`h.minutes = 60`,
      ...(firstWholeHour !== null ? [sql`h.slot >= ${firstWholeHour}::int`] : []),
      ...(range.end ? [sql`h.slot < ${Math.floor((range.end.getTime() + 1) / HOUR_MS)}::int`] : [])], sql` and `)})`;
  // Per part: its length, its first and last slot, and whether it starts after the day tail (1) or the hour tail (2) instead.
  const parts = SLOT_LENGTHS.flatMap((minutes) => {
    const length = minutes * 60_000;
    const edge = length >= HOUR_MS ? (first !== null ? first * DAY_MS : null) : (firstWholeHour !== null ? firstWholeHour * HOUR_MS : null);
    const from = range.start ? Math.floor(range.start.getTime() / length) : 0;
    const to = range.end ? Math.floor(range.end.getTime() / length) : MAX_INT;
    return [
      ...(edge !== null && range.start ? [{ minutes, from, to: Math.ceil(edge / length) - 1, after: 0 }] : []),
      { minutes, from, to, after: length >= HOUR_MS ? 1 : 2 },
    ];
  });
  const column = (key: 'minutes' | 'from' | 'to' | 'after') => parts.map((part) => part[key]);
  const slots = sql`
    select 'slot', s.minutes, s.slot
    from (select ${dayTail} as day_tail, ${hourTail} as hour_tail) t
    cross join unnest(${column('minutes')}::int[], ${column('from')}::int[], ${column('to')}::int[], ${column('after')}::int[]) as p(minutes, first, last, after)
    cross join lateral (select minutes, slot from usage_rollup_slots
      where tenant_id = ${tenantId} and minutes = p.minutes and slot <= p.last
        and slot >= greatest(p.first, case p.after when 1 then t.day_tail / (p.minutes * 60000) when 2 then t.hour_tail / (p.minutes * 60000) else p.first end)) s`;
  const { rows } = await sql<{ kind: 'block' | 'dirty' | 'slot'; level: number; start: number }>`
    select 'block' as kind, level, start_day - date '1970-01-01' as start from usage_rollups where tenant_id = ${tenantId} and ${days('start_day', first, last)}
    union all
    -- Over every day the period touches: a dirty partial day makes its slots dirty.
    select 'dirty', 0, day - date '1970-01-01' from usage_rollup_dirty_days
    where tenant_id = ${tenantId} and ${days('day', dayOf(range.start), dayOf(range.end))}
    union all
    ${slots}`.execute(db);
  const of = (kind: string) => rows.filter((row) => row.kind === kind);
  return planPeriod(range, of('block'), of('dirty').map((row) => row.start),
    of('slot').map((row) => ({ minutes: row.level, slot: row.start })));
}

/**
 * Adds the roll-ups of the blocks of days and of the slots to `figures`: the platforms' users
 * only, everything people at risk needs, or each user's high-risk interactions only (the stats'
 * top users). Each bitmap comes as a row of its own, read as binary (bytea) rather than inside an array.
 */
export async function addRollups(
  db: Db, tenantId: string, plan: Pick<RollupPlan, 'blocks' | 'slots'>, figures: UsageFigures, what: 'platforms' | 'people' | 'high_risk',
) {
  const { blocks, slots } = plan;
  if (blocks.length === 0 && slots.length === 0) return;
  const platforms = sql`select 'platform' as kind, u.name, u.bits, u.interactions, u.high from r
    cross join unnest(r.platforms, r.platform_users, r.platform_interactions, r.platform_high_risk) as u(name, bits, interactions, high)`;
  const highRisk = sql`select 'high_risk' as kind, null as name, r.high_risk as bits, null as interactions, null as high from r`;
  const people = sql`${platforms}
    union all select 'type', u.name, u.bits, null, null from r cross join unnest(r.types, r.type_users) as u(name, bits)
    union all ${highRisk}
    union all select 'violations', null, r.violations, null, null from r`;
  const { rows } = await sql<{ kind: 'high_risk' | 'violations' | 'platform' | 'type'; name: string | null; bits: Uint8Array; interactions: string | null; high: string | null }>`
    with r as (
      select r.high_risk, r.violations, r.platforms, r.platform_users, r.platform_interactions, r.platform_high_risk, r.types, r.type_users
      from unnest(${blocks.map((block) => block.level)}::int[], ${blocks.map((block) => block.start)}::int[]) as b(level, start)
      join usage_rollups r on r.tenant_id = ${tenantId} and r.level = b.level and r.start_day = date '1970-01-01' + b.start
      union all
      select s.high_risk, s.violations, s.platforms, s.platform_users, s.platform_interactions, s.platform_high_risk, s.types, s.type_users
      from unnest(${slots.map((slot) => slot.minutes)}::int[], ${slots.map((slot) => slot.slot)}::int[]) as t(minutes, slot)
      join usage_rollup_slots s on s.tenant_id = ${tenantId} and s.minutes = t.minutes and s.slot = t.slot)
    ${what === 'people' ? people : what === 'platforms' ? platforms : highRisk}`.execute(db);
  for (const { kind, name, bits, interactions, high } of rows) {
    if (kind === 'type') figures.addEncoded({ types: [name!], type_users: [bits] });
    else if (kind !== 'platform') figures.addEncoded({ [kind]: bits });
    else figures.addEncoded({ platforms: [name!], platform_users: [bits], platform_interactions: [Number(interactions)], platform_high_risk: [Number(high)] });
  }
}

/** Adds each platform's interactions, high-risk interactions and users within the intervals, from the rows (interactions_time_idx). */
export async function addPlatformsFromRows(db: Db, tenantId: string, live: readonly LiveInterval[], figures: UsageFigures) {
  if (live.length === 0) return;
  const { rows } = await sql<FigureRow>`
    select p.*, u.n from (
      select i.platform_id, i.user_id, count(*) as interactions, count(*) filter (where i.risk_score >= ${sql.lit(HIGH_RISK)}) as high_risk,
        0 as violations, '{}'::text[] as types
      from interactions i
      where i.tenant_id = ${tenantId} and ${withinAny('i.timestamp', live)}
      group by 1, 2) p
    left join usage_rollup_users u on u.tenant_id = ${tenantId} and u.user_id = p.user_id`.execute(db);
  for (const row of rows) figures.addPlatformRow(platformRowOf(row));
}

/** Adds every figure of people at risk and usage within the intervals, from the rows. */
export async function addPeopleFromRows(db: Db, tenantId: string, live: readonly LiveInterval[], figures: UsageFigures) {
  if (live.length === 0) return;
  const { rows } = await sql<FigureRow>`
    select f.*, u.n from (${figuresFromRows(tenantId, live)}) f
    left join usage_rollup_users u on u.tenant_id = ${tenantId} and u.user_id = f.user_id`.execute(db);
  for (const row of rows) figures.addPlatformRow(platformRowOf(row));
}

/** The period's figures: its clean roll-ups (blocks of days, slots) and the rows of the rest. */
export async function periodFigures(db: Db, tenantId: string, range: DateRange, what: 'platforms' | 'people'): Promise<UsageFigures> {
  const plan = await planOf(db, tenantId, range);
  const figures = new UsageFigures();
  // Sums and unions, in any order: both reads are sent together.
  await Promise.all([
    addRollups(db, tenantId, plan, figures, what),
    what === 'people' ? addPeopleFromRows(db, tenantId, plan.live, figures) : addPlatformsFromRows(db, tenantId, plan.live, figures),
  ]);
  return figures;
}

/** The user ids of the tenant's user numbers; an erased user's number has none and is left out. */
export async function userIdsOfNumbers(db: Db, tenantId: string, numbers: readonly number[]): Promise<Map<number, string>> {
  if (numbers.length === 0) return new Map();
  const { rows } = await sql<{ n: number; user_id: string }>`
    select n, user_id from usage_rollup_users
    where tenant_id = ${tenantId} and n = any(${numbers}::int[]) and user_id is not null`.execute(db);
  return new Map(rows.map((row) => [row.n, row.user_id]));
}
