import { type Kysely, type Transaction, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../kernel/tables/database.js';
import type { Deps } from '../../platform/deps.js';
import { LEASES, LOCK_IDS } from '../../kernel/lock-ids.js';
import { Poller } from '../../platform/poller.js';
import { withLease } from '../../platform/store/leases.js';
import { logFailure } from '../../platform/store/store-outages.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { ALL_TENANTS, inTenants } from '../../platform/store/tenant-scope.js';
import { DAY_MS, HOUR_MS, MAX_LEVEL, SLOT_LENGTHS, SLOT_MS } from './rollup-plan.js';
import { figuresBySlot, numberedFigures, slotsOfEveryLength, writeRollup, writeSlots } from './rollup-writes.js';
import { UsageFigures } from './usage-figures.js';

/**
 * A UTC day is rolled up once it has ended and this much more has passed: the service stamps
 * interactions with its own clock at ingest, so after it no row can arrive in that day, even
 * from a replica whose clock lags or a group commit still in flight.
 */
export const ROLLUP_MARGIN_MS = 10 * 60_000;

/**
 * Hours and their 5-minute slots are rolled up for this many days before the day of the last
 * closed hour, and that day: a period that starts or ends within them reads its partial days from
 * hour roll-ups and its partial hours from 5-minute ones. The hours not closed yet have 5-minute
 * slots only.
 */
export const HOUR_ROLLUP_DAYS = 35;

type Tx = Transaction<Database>;

export interface RollupRun {
  days: number;
  /** Hours and 5-minute slots. */
  slots: number;
  blocks: number;
}

/**
 * Rolls up every tenant's closed days not rolled up yet or marked dirty since, then the blocks
 * of days above them, one tenant at a time under its lease (another replica's tenant is skipped).
 * Each day and each block is one transaction under the tenant's advisory lock, so two workers
 * never interleave their writes: running it twice, or on two replicas, changes nothing more.
 */
export async function rollUpUsage(db: Kysely<Database>, now: Date, tenantIds?: readonly string[]): Promise<RollupRun> {
  const ids = tenantIds ?? (await inFixedScope(db, ALL_TENANTS).selectFrom('tenants').select('id').orderBy('id').execute())
    .map((row) => row.id);
  const run: RollupRun = { days: 0, slots: 0, blocks: 0 };
  for (const tenantId of ids) {
    const done = await inTenants([tenantId], () =>
      withLease(db, LEASES.usageRollups, () => rollUpTenant(db, tenantId, now), { key: tenantId }));
    if (done) {
      run.days += done.days;
      run.slots += done.slots;
      run.blocks += done.blocks;
    }
  }
  return run;
}

/** The last day closed at `now` (days numbered from 1970-01-01). */
export const lastClosedDay = (now: Date) => Math.floor((now.getTime() - ROLLUP_MARGIN_MS) / DAY_MS) - 1;

/** The last hour closed at `now` (hours numbered from 1970-01-01T00:00Z, 24 a day). */
export const lastClosedHour = (now: Date) => Math.floor((now.getTime() - ROLLUP_MARGIN_MS) / HOUR_MS) - 1;

/** The last 5-minute slot closed at `now`. */
export const lastClosedSlot = (now: Date) => Math.floor((now.getTime() - ROLLUP_MARGIN_MS) / SLOT_MS) - 1;

const SLOTS_PER_HOUR = HOUR_MS / SLOT_MS;
const SLOTS_PER_DAY = DAY_MS / SLOT_MS;
const SLOT_MINUTES = SLOT_MS / 60_000;
/** 5-minute slots in half an hour, the longest block of the open hours. */
const HALF_HOUR = 30 / SLOT_MINUTES;

/**
 * The slots of every length that end after minute `from` (null: any) and start before minute
 * `to` (counted from 1970-01-01T00:00Z), as one index range per length.
 */
function slotsWithin(from: number | null, to: number) {
  return sql`(${sql.join(SLOT_LENGTHS.map((minutes) => sql`(minutes = ${minutes} and slot < ${Math.ceil(to / minutes)}::int${
    from === null ? sql`` : sql` and slot >= ${Math.floor(from / minutes)}::int`})`), sql` or `)})`;
}

/** The first day whose hours and 5-minute slots are rolled up and kept. */
const firstHourDay = (now: Date) => Math.floor(lastClosedHour(now) / 24) - HOUR_ROLLUP_DAYS;

/**
 * The days to roll up: closed days without a roll-up; days of the hours' window missing a 5-minute
 * slot of a closed hour (the open day as its hours close, the window's days after an upgrade: a
 * day's hours and blocks are written with its 5-minute slots, in one transaction); dirty days.
 */
async function rollUpTenant(db: Kysely<Database>, tenantId: string, now: Date): Promise<RollupRun> {
  const last = lastClosedDay(now);
  const lastHour = lastClosedHour(now);
  const hoursFrom = firstHourDay(now);
  const hoursTo = Math.floor(lastHour / 24);
  await sql`delete from usage_rollup_slots where tenant_id = ${tenantId} and ${slotsWithin(null, hoursFrom * 1440)}`.execute(db);
  const { rows } = await sql<{ day: number }>`
    with first as (
      select (min(timestamp) at time zone 'UTC')::date - date '1970-01-01' as day from interactions where tenant_id = ${tenantId})
    select d.day from first cross join generate_series(first.day, ${hoursTo}::int) as d(day)
    where (d.day <= ${last}::int and not exists (select 1 from usage_rollups r
        where r.tenant_id = ${tenantId} and r.level = 0 and r.start_day = date '1970-01-01' + d.day))
      or (d.day >= ${hoursFrom}::int and (select count(*) from usage_rollup_slots f
        where f.tenant_id = ${tenantId} and f.minutes = ${SLOT_MINUTES} and f.slot >= d.day * ${SLOTS_PER_DAY}
          and f.slot < least((d.day + 1) * ${SLOTS_PER_DAY}, (${lastHour}::int + 1) * ${SLOTS_PER_HOUR}))
        < least(${SLOTS_PER_DAY}, (${lastHour}::int + 1 - d.day * 24) * ${SLOTS_PER_HOUR}))
    union
    select day - date '1970-01-01' from usage_rollup_dirty_days where tenant_id = ${tenantId} and day <= date '1970-01-01' + ${hoursTo}::int
    order by 1`.execute(db);
  const run: RollupRun = { days: 0, slots: 0, blocks: 0 };
  for (const { day } of rows) {
    const done = await rollUpDay(db, tenantId, day, now);
    run.days += done.days;
    run.slots += done.hours;
  }
  run.slots += await rollUpOpenSlots(db, tenantId, now);
  // The lowest level with blocks due, then the levels above it again (the blocks just built may
  // complete theirs): a pass with nothing to build asks once, not once per level.
  for (let from = 1; from <= MAX_LEVEL;) {
    const due = await dueBlocks(db, tenantId, from);
    const level = due[0]?.level;
    if (level === undefined) break;
    for (const { start } of due.filter((block) => block.level === level)) run.blocks += await rollUpBlock(db, tenantId, level, start, now);
    from = level + 1;
  }
  return run;
}

/** Blocks of levels `from` and up whose two halves are there, not built yet, and none of whose days is dirty. */
async function dueBlocks(db: Kysely<Database>, tenantId: string, from: number): Promise<Array<{ level: number; start: number }>> {
  const { rows } = await sql<{ level: number; start: number }>`
    select b.level, c.start_day - date '1970-01-01' as start
    from generate_series(${from}::int, ${MAX_LEVEL}::int) as b(level)
    join usage_rollups c on c.tenant_id = ${tenantId} and c.level = b.level - 1
      and (c.start_day - date '1970-01-01') % (1 << b.level) = 0
    where exists (select 1 from usage_rollups d
        where d.tenant_id = ${tenantId} and d.level = b.level - 1 and d.start_day = c.start_day + (1 << (b.level - 1)))
      and not exists (select 1 from usage_rollups p where p.tenant_id = ${tenantId} and p.level = b.level and p.start_day = c.start_day)
      and not exists (select 1 from usage_rollup_dirty_days x
        where x.tenant_id = ${tenantId} and x.day >= c.start_day and x.day < c.start_day + (1 << b.level))
    order by 1, 2`.execute(db);
  return rows;
}

/** One transaction holding the tenant's lock: roll-up writers of a tenant take turns. */
async function underTenantLock<T>(db: Kysely<Database>, tenantId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_IDS.usageRollups}, hashtext(${tenantId}::text))`.execute(tx);
    return work(tx);
  });
}

/**
 * Rolls up one day from its rows: the day once it is closed (dropping the blocks holding it, built
 * from its previous roll-up) and, within the hours' window, each of its closed hours and their
 * 5-minute slots, all from one read of its rows. Its dirty mark is cleared only if no change
 * marked it again since it was read, before the rows: a delete that commits meanwhile leaves the
 * day dirty.
 */
async function rollUpDay(db: Kysely<Database>, tenantId: string, day: number, now: Date): Promise<{ days: number; hours: number }> {
  const closed = day <= lastClosedDay(now);
  const hoursEnd = Math.min((day + 1) * 24, lastClosedHour(now) + 1);
  const withHours = day >= firstHourDay(now) && hoursEnd > day * 24;
  return underTenantLock(db, tenantId, async (tx) => {
    const { rows: [mark] } = await sql<{ marks: string }>`
      select marks from usage_rollup_dirty_days where tenant_id = ${tenantId} and day = date '1970-01-01' + ${day}::int`.execute(tx);
    const end = closed ? (day + 1) * DAY_MS : hoursEnd * HOUR_MS;
    const rows = await numberedFigures(tx, tenantId, day * DAY_MS, end, withHours ? SLOT_MINUTES : undefined);
    const { whole, slots } = figuresBySlot(rows, { whole: closed });
    // Whatever holds the day and is not written again below goes (the blocks above it, the open
    // hours' slots, built again right after, and a roll-up that a replica whose clock runs ahead
    // wrote early), so nothing stale outlives the mark.
    const kept = (withHours ? hoursEnd : day * 24) * 60;
    await sql`
      delete from usage_rollups where tenant_id = ${tenantId} and level >= ${closed ? 1 : 0}
        and start_day <= date '1970-01-01' + ${day}::int and start_day + (1 << level) > date '1970-01-01' + ${day}::int`.execute(tx);
    await sql`delete from usage_rollup_slots where tenant_id = ${tenantId} and ${slotsWithin(kept, (day + 1) * 1440)}`.execute(tx);
    if (whole) await writeRollup(tx, tenantId, { level: 0, start: day }, whole.encode(), now);
    if (withHours) await writeSlots(tx, tenantId, slotsOfEveryLength(slots, day * SLOTS_PER_DAY, hoursEnd * SLOTS_PER_HOUR, SLOT_LENGTHS[0]), now);
    await sql`
      delete from usage_rollup_dirty_days
      where tenant_id = ${tenantId} and day = date '1970-01-01' + ${day}::int and marks = ${mark?.marks ?? null}`.execute(tx);
    return { days: closed ? 1 : 0, hours: withHours ? hoursEnd - day * 24 : 0 };
  });
}

/**
 * Rolls up the closed 5-minute slots of the hours not closed yet, and their 15- and 30-minute
 * blocks, from the 30 minutes holding the first one missing on (the job comes by every minute, so
 * that is the last half hour's rows at most). A dirty day's were deleted by rollUpDay before this
 * runs and are built again here; those of closed hours are rollUpDay's.
 */
async function rollUpOpenSlots(db: Kysely<Database>, tenantId: string, now: Date): Promise<number> {
  const first = (lastClosedHour(now) + 1) * SLOTS_PER_HOUR;
  const last = lastClosedSlot(now);
  if (last < first) return 0;
  return underTenantLock(db, tenantId, async (tx) => {
    const { rows: [built] } = await sql<{ from: number }>`
      select coalesce(max(slot) + 1, ${first}::int) as from from usage_rollup_slots
      where tenant_id = ${tenantId} and minutes = ${SLOT_MINUTES} and slot >= ${first}::int and slot <= ${last}::int`.execute(tx);
    if (built!.from > last) return 0;
    const from = Math.floor(built!.from / HALF_HOUR) * HALF_HOUR;
    const { slots } = figuresBySlot(await numberedFigures(tx, tenantId, from * SLOT_MS, (last + 1) * SLOT_MS, SLOT_MINUTES));
    await writeSlots(tx, tenantId, slotsOfEveryLength(slots, from, last + 1, 30), now);
    return last - built!.from + 1;
  });
}

/** Rolls up a block of 2^level days from its two halves, when both are there and none of its days is dirty. */
async function rollUpBlock(db: Kysely<Database>, tenantId: string, level: number, start: number, now: Date): Promise<number> {
  return underTenantLock(db, tenantId, async (tx) => {
    const size = 2 ** level;
    const { rows } = await sql<{
      high_risk: string; violations: string; platforms: string[]; platform_users: string[]; platform_interactions: string[];
      platform_high_risk: string[]; types: string[]; type_users: string[];
    }>`
      select encode(r.high_risk, 'base64') as high_risk, encode(r.violations, 'base64') as violations, r.platforms,
        array(select encode(b, 'base64') from unnest(r.platform_users) with ordinality as u(b, o) order by o) as platform_users,
        r.platform_interactions, r.platform_high_risk,
        r.types, array(select encode(b, 'base64') from unnest(r.type_users) with ordinality as u(b, o) order by o) as type_users
      from usage_rollups r
      where r.tenant_id = ${tenantId} and r.level = ${level - 1}
        and r.start_day in (date '1970-01-01' + ${start}::int, date '1970-01-01' + ${start + size / 2}::int)
        and not exists (select 1 from usage_rollup_dirty_days x where x.tenant_id = ${tenantId}
          and x.day >= date '1970-01-01' + ${start}::int and x.day < date '1970-01-01' + ${start + size}::int)`.execute(tx);
    if (rows.length !== 2) return 0;
    const figures = new UsageFigures();
    const decode = (base64: string) => Buffer.from(base64, 'base64');
    for (const row of rows) {
      figures.addEncoded({
        high_risk: decode(row.high_risk), violations: decode(row.violations),
        platforms: row.platforms, platform_users: row.platform_users.map(decode), platform_interactions: row.platform_interactions.map(Number),
        platform_high_risk: row.platform_high_risk.map(Number), types: row.types, type_users: row.type_users.map(decode),
      });
    }
    await writeRollup(tx, tenantId, { level, start }, figures.encode(), now);
    return 1;
  });
}

/** Erasure: the person's id leaves the numbering; the number is never given again (their days are dirty until rolled up anew). */
export async function forgetRollupUser(db: Kysely<Database> | Tx, tenantId: string, userId: string): Promise<void> {
  await sql`update usage_rollup_users set user_id = null where tenant_id = ${tenantId} and user_id = ${userId}`.execute(db);
}

/** Rolls up the closed days and slots every `intervalMs` (default a minute: the 5-minute slots are worth it then), and at start. */
export class UsageRollupWorker {
  private readonly poller: Poller;

  constructor(private readonly deps: Deps, private readonly logger: Logger, intervalMs = 60_000) {
    this.poller = new Poller(() => this.run(), intervalMs,
      (error) => logFailure(deps.store, logger, 'warn', error, 'usage roll-ups failed; will retry'));
  }

  async start(): Promise<void> {
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  private async run(): Promise<false> {
    const run = await rollUpUsage(this.deps.store.db, this.deps.clock.now());
    if (run.days + run.slots + run.blocks > 0) this.logger.info(run, 'usage rolled up');
    return false;
  }
}
