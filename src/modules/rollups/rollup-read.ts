import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { DateRange } from '../../kernel/dates.js';
import { type Block, DAY_MS, HOUR_MS, type LiveInterval, type RollupPlan, planPeriod, wholeDays } from './rollup-plan.js';
import { figuresFromRows, withinAny } from './rollup-rows.js';
import { UsageFigures } from './usage-figures.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Reads a period's users figures from the roll-ups and the rows (docs/platforms.md, "Roll-ups").
 * Run in one repeatable-read transaction: the roll-ups, the dirty marks and the rows are then one
 * snapshot, in which every day is either in a clean roll-up or counted from its rows, never both.
 */
export async function planOf(db: Db, tenantId: string, range: DateRange): Promise<RollupPlan> {
  const { first, last } = wholeDays(range);
  const bounds = (column: string) => sql.join([
    sql`true`,
    ...(first !== null ? [sql`${sql.ref(column)} >= date '1970-01-01' + ${first}::int`] : []),
    ...(last !== null ? [sql`${sql.ref(column)} <= date '1970-01-01' + ${last}::int`] : []),
  ], sql` and `);
  // Dirty days are read over the hours' bounds: a dirty partial day makes its hours dirty.
  const hourBounds = sql.join([
    sql`true`,
    ...(range.start ? [sql`hour >= ${Math.floor(range.start.getTime() / HOUR_MS)}::int`] : []),
    ...(range.end ? [sql`hour <= ${Math.floor(range.end.getTime() / HOUR_MS)}::int`] : []),
  ], sql` and `);
  const dayBounds = (column: string) => sql.join([
    sql`true`,
    ...(range.start ? [sql`${sql.ref(column)} >= date '1970-01-01' + ${Math.floor(range.start.getTime() / DAY_MS)}::int`] : []),
    ...(range.end ? [sql`${sql.ref(column)} <= date '1970-01-01' + ${Math.floor(range.end.getTime() / DAY_MS)}::int`] : []),
  ], sql` and `);
  const { rows } = await sql<{ level: number; start: number }>`
    select level, start_day - date '1970-01-01' as start from usage_rollups where tenant_id = ${tenantId} and ${bounds('start_day')}
    union all
    select -1, day - date '1970-01-01' from usage_rollup_dirty_days where tenant_id = ${tenantId} and ${dayBounds('day')}
    union all
    select -2, hour from usage_rollup_hours where tenant_id = ${tenantId} and ${hourBounds}`.execute(db);
  const blocks: Block[] = rows.filter((row) => row.level >= 0);
  const dirty = rows.filter((row) => row.level === -1).map((row) => row.start);
  const hours = rows.filter((row) => row.level === -2).map((row) => row.start);
  return planPeriod(range, blocks, dirty, hours);
}

/**
 * Adds the roll-ups of the blocks of days and of the hours to `figures`: the platforms' users
 * only, or everything people at risk needs. Each bitmap comes as a row of its own, read as binary
 * (bytea) rather than inside an array.
 */
export async function addRollups(db: Db, tenantId: string, plan: Pick<RollupPlan, 'blocks' | 'hours'>, figures: UsageFigures, what: 'platforms' | 'people') {
  const { blocks, hours } = plan;
  if (blocks.length === 0 && hours.length === 0) return;
  const people = what === 'people';
  const { rows } = await sql<{ kind: 'high_risk' | 'violations' | 'platform' | 'type'; name: string | null; bits: Uint8Array }>`
    with r as (
      select r.high_risk, r.violations, r.platforms, r.platform_users, r.types, r.type_users
      from unnest(${blocks.map((block) => block.level)}::int[], ${blocks.map((block) => block.start)}::int[]) as b(level, start)
      join usage_rollups r on r.tenant_id = ${tenantId} and r.level = b.level and r.start_day = date '1970-01-01' + b.start
      union all
      select h.high_risk, h.violations, h.platforms, h.platform_users, h.types, h.type_users
      from usage_rollup_hours h where h.tenant_id = ${tenantId} and h.hour = any (${hours}::int[]))
    select 'platform' as kind, u.name, u.bits from r cross join unnest(r.platforms, r.platform_users) as u(name, bits)
    ${people ? sql`
    union all select 'type', u.name, u.bits from r cross join unnest(r.types, r.type_users) as u(name, bits)
    union all select 'high_risk', null, r.high_risk from r
    union all select 'violations', null, r.violations from r` : sql``}`.execute(db);
  for (const { kind, name, bits } of rows) {
    if (kind === 'platform') figures.addEncoded({ platforms: [name!], platform_users: [bits] });
    else if (kind === 'type') figures.addEncoded({ types: [name!], type_users: [bits] });
    else figures.addEncoded({ [kind]: bits });
  }
}

/** Adds each platform's users within the intervals, from the rows (interactions_time_idx). */
export async function addPlatformUsersFromRows(db: Db, tenantId: string, live: readonly LiveInterval[], figures: UsageFigures) {
  if (live.length === 0) return;
  const { rows } = await sql<{ platform_id: string; user_id: string; n: number | null }>`
    select p.platform_id, p.user_id, u.n from (
      select distinct i.platform_id, i.user_id from interactions i
      where i.tenant_id = ${tenantId} and i.user_id is not null and ${withinAny('i.timestamp', live)}) p
    left join usage_rollup_users u on u.tenant_id = ${tenantId} and u.user_id = p.user_id`.execute(db);
  for (const row of rows) {
    figures.addRow({ n: row.n, user_id: row.user_id, high_risk: 0, violations: 0, types: [], platforms: [row.platform_id] });
  }
}

/** Adds every figure of people at risk within the intervals, from the rows. */
export async function addPeopleFromRows(db: Db, tenantId: string, live: readonly LiveInterval[], figures: UsageFigures) {
  if (live.length === 0) return;
  const { rows } = await sql<{ user_id: string; n: number | null; high_risk: string | number; violations: string | number; types: string[]; platforms: string[] }>`
    select f.*, u.n from (${figuresFromRows(tenantId, live)}) f
    left join usage_rollup_users u on u.tenant_id = ${tenantId} and u.user_id = f.user_id`.execute(db);
  for (const row of rows) {
    figures.addRow({ ...row, high_risk: Number(row.high_risk), violations: Number(row.violations) });
  }
}

/** The period's figures: its clean roll-ups (blocks of days, hours) and the rows of the rest. */
export async function periodFigures(db: Db, tenantId: string, range: DateRange, what: 'platforms' | 'people'): Promise<UsageFigures> {
  const plan = await planOf(db, tenantId, range);
  const figures = new UsageFigures();
  // Sums and unions, in any order: both reads are sent together.
  await Promise.all([
    addRollups(db, tenantId, plan, figures, what),
    what === 'people' ? addPeopleFromRows(db, tenantId, plan.live, figures) : addPlatformUsersFromRows(db, tenantId, plan.live, figures),
  ]);
  return figures;
}
