import { type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { SLOT_LENGTHS, SLOT_MS, type Slot } from './rollup-plan.js';
import { type FigureRow, figuresFromRows, platformRowOf, withinAny } from './rollup-rows.js';
import { type EncodedFigures, UsageFigures } from './usage-figures.js';

/** How the roll-up job reads rows into figures and writes roll-ups (docs/platforms.md, "Roll-ups"). */

type Tx = Transaction<Database>;

/**
 * The figures of the rows in [start, end), per user (and slot), after numbering the users met for
 * the first time. Two statements, each a scan with lookups by key: nothing in them joins two
 * results whose sizes the planner may misjudge (the rows since the last ANALYZE look like none).
 */
export async function numberedFigures(tx: Tx, tenantId: string, start: number, end: number, slotMinutes?: number): Promise<FigureRow[]> {
  const within = withinAny('i.timestamp', [{ start, end }]);
  await sql`
    insert into usage_rollup_users (tenant_id, n, user_id)
    select ${tenantId}, (select coalesce(max(n), -1) from usage_rollup_users where tenant_id = ${tenantId})
      + row_number() over (order by user_id), user_id
    from (select distinct i.user_id from interactions i
      where i.tenant_id = ${tenantId} and i.user_id is not null and ${within}
        and not exists (select 1 from usage_rollup_users u where u.tenant_id = ${tenantId} and u.user_id = i.user_id)) new_users`.execute(tx);
  const { rows } = await sql<FigureRow>`
    select u.n, f.* from (${figuresFromRows(tenantId, [{ start, end }], { slotMinutes })}) f
    left join usage_rollup_users u on u.tenant_id = ${tenantId} and u.user_id = f.user_id`.execute(tx);
  return rows;
}

/** The rows' figures per slot (when read by slot), and in all (`whole`) when asked. */
export function figuresBySlot(rows: readonly FigureRow[], { whole = false } = {}): { whole?: UsageFigures; slots: Map<number, UsageFigures> } {
  const all = whole ? new UsageFigures() : undefined;
  const slots = new Map<number, UsageFigures>();
  for (const row of rows) {
    const figures = platformRowOf(row);
    all?.addPlatformRow(figures);
    if (row.slot === undefined) continue;
    if (!slots.has(row.slot)) slots.set(row.slot, new UsageFigures());
    slots.get(row.slot)!.addPlatformRow(figures);
  }
  return { whole: all, slots };
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const hexes = (list: Uint8Array[]) => sql`array(select decode(h, 'hex') from unnest(${list.map(hex)}::text[]) with ordinality as u(h, o) order by o)`;
const COLUMNS = sql`high_risk, violations, platforms, platform_users, platform_interactions, platform_high_risk, types, type_users, built_at`;
const figuresOf = (encoded: EncodedFigures, now: Date) => sql`decode(${hex(encoded.high_risk)}, 'hex'), decode(${hex(encoded.violations)}, 'hex'),
  ${encoded.platforms}::text[], ${hexes(encoded.platform_users)}, ${encoded.platform_interactions}::bigint[], ${encoded.platform_high_risk}::bigint[],
  ${encoded.types}::text[], ${hexes(encoded.type_users)}, ${now}`;
const UPDATE = sql`high_risk = excluded.high_risk, violations = excluded.violations, platforms = excluded.platforms,
  platform_users = excluded.platform_users, platform_interactions = excluded.platform_interactions,
  platform_high_risk = excluded.platform_high_risk, types = excluded.types, type_users = excluded.type_users, built_at = excluded.built_at`;

/**
 * The slots of every length up to `longest` minutes that fit whole in [from, to) (counted in
 * 5-minute slots), from the 5-minute slots' figures (missing ones empty): each length is the sum
 * of the next shorter one's slots (SLOT_LENGTHS: each divides the one before it).
 */
export function slotsOfEveryLength(fives: ReadonlyMap<number, UsageFigures>, from: number, to: number, longest: number): Array<{ at: Slot; figures: UsageFigures }> {
  const shortest = SLOT_MS / 60_000;
  let previous = { minutes: shortest, figures: new Map<number, UsageFigures>() };
  for (let slot = from; slot < to; slot++) previous.figures.set(slot, fives.get(slot) ?? new UsageFigures());
  const all = [...previous.figures].map(([slot, figures]) => ({ at: { minutes: shortest, slot }, figures }));
  for (const minutes of [...SLOT_LENGTHS].reverse()) {
    if (minutes <= shortest || minutes > longest) continue;
    const parts = minutes / previous.minutes;
    const next = new Map<number, UsageFigures>();
    for (let slot = Math.ceil((from * shortest) / minutes); (slot + 1) * minutes <= to * shortest; slot++) {
      const figures = new UsageFigures();
      for (let part = slot * parts; part < (slot + 1) * parts; part++) figures.addFigures(previous.figures.get(part)!);
      next.set(slot, figures);
      all.push({ at: { minutes, slot }, figures });
    }
    previous = { minutes, figures: next };
  }
  return all;
}

/** Writes (or writes again) the roll-up of a block of days. */
export async function writeRollup(tx: Tx, tenantId: string, at: { level: number; start: number }, encoded: EncodedFigures, now: Date): Promise<void> {
  await sql`
    insert into usage_rollups (tenant_id, level, start_day, ${COLUMNS})
    values (${tenantId}, ${at.level}, date '1970-01-01' + ${at.start}::int, ${figuresOf(encoded, now)})
    on conflict (tenant_id, level, start_day) do update set ${UPDATE}`.execute(tx);
}

/** Writes (or writes again) the roll-ups of slots: a statement per hundred (a day's hours and 5-minute slots in four). */
export async function writeSlots(tx: Tx, tenantId: string, slots: ReadonlyArray<{ at: Slot; figures: UsageFigures }>, now: Date): Promise<void> {
  for (let from = 0; from < slots.length; from += 100) {
    const values = slots.slice(from, from + 100).map(({ at, figures }) =>
      sql`(${tenantId}::uuid, ${at.minutes}::int, ${at.slot}::int, ${figuresOf(figures.encode(), now)})`);
    await sql`
      insert into usage_rollup_slots (tenant_id, minutes, slot, ${COLUMNS})
      values ${sql.join(values)}
      on conflict (tenant_id, minutes, slot) do update set ${UPDATE}`.execute(tx);
  }
}
