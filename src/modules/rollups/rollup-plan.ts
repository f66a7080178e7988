import type { DateRange } from '../../kernel/dates.js';

/**
 * Which parts of a period the roll-ups answer and which the rows do (docs/platforms.md,
 * "Roll-ups"). Days are UTC days numbered from 1970-01-01; a roll-up covers an aligned block of
 * 2^level days (its start a multiple of 2^level), level 0 being one day. Pure: the SQL is in
 * rollup-read.ts.
 */

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
/** The shortest slots' length. */
export const SLOT_MS = 5 * 60_000;
/**
 * The slots' lengths in minutes, longest first: blocks of hours aligned within a day, the hour,
 * blocks of 5 minutes aligned within an hour, 5 minutes. Each divides the one before it, so the
 * longest first that fit make the fewest slots.
 */
export const SLOT_LENGTHS = [720, 360, 180, 60, 30, 15, 5] as const;
/** The largest block: 2^12 days, about 11 years. */
export const MAX_LEVEL = 12;

export interface Block {
  level: number;
  start: number;
}

/** [start, end) in epoch ms, null unbounded: a stretch of the period counted from the rows. */
export interface LiveInterval {
  start: number | null;
  end: number | null;
}

/** A slot of `minutes` (one of SLOT_LENGTHS): the `slot`-th from 1970-01-01T00:00Z. */
export interface Slot {
  minutes: number;
  slot: number;
}

export interface RollupPlan {
  blocks: Block[];
  /** Slots with a clean roll-up, in the parts of the period the blocks leave, longest first. */
  slots: Slot[];
  live: LiveInterval[];
}

/** The whole days of an inclusive period of whole milliseconds: [first, last], either null when unbounded. */
export function wholeDays(range: DateRange): { first: number | null; last: number | null } {
  return {
    first: range.start ? Math.ceil(range.start.getTime() / DAY_MS) : null,
    last: range.end ? Math.floor((range.end.getTime() + 1) / DAY_MS) - 1 : null,
  };
}

/**
 * Covers the period's whole days with the fewest clean roll-ups: from each day on, the largest
 * existing block that fits in the period and holds no dirty day; a day without a clean roll-up
 * of its own (not rolled up yet, or dirty) is left to the slots, as are the period's partial
 * days at its ends. An unbounded end stops at the last rolled-up day. Then what is left is
 * covered by the whole slots with a clean roll-up (their day not dirty), longest first, and the
 * rows take the rest.
 */
export function planPeriod(range: DateRange, existing: readonly Block[], dirtyDays: readonly number[], slots: readonly Slot[] = []): RollupPlan {
  const dirty = [...dirtyDays].sort((a, b) => a - b);
  const clean = (from: number, to: number) => { // no dirty day in [from, to)
    const next = dirty.find((day) => day >= from);
    return next === undefined || next >= to;
  };
  const { blocks, rest } = coverDays(range, existing, clean);
  const taken: Slot[] = [];
  let live = rest;
  for (const minutes of SLOT_LENGTHS) {
    const length = minutes * 60_000;
    const dayOf = (slot: number) => Math.floor((slot * length) / DAY_MS);
    const ofLength = [...new Set(slots.filter((slot) => slot.minutes === minutes && clean(dayOf(slot.slot), dayOf(slot.slot) + 1))
      .map((slot) => slot.slot))].sort((a, b) => a - b);
    const covered = coverWithSlots(live, length, ofLength);
    taken.push(...covered.taken.map((slot) => ({ minutes, slot })));
    live = covered.rest;
  }
  return { blocks, slots: taken, live };
}

/** Within the intervals, the slots (of `length` ms, sorted) that fit whole, and what they leave. */
function coverWithSlots(intervals: readonly LiveInterval[], length: number, slots: readonly number[]): { taken: number[]; rest: LiveInterval[] } {
  const taken: number[] = [];
  const rest = new Intervals();
  for (const interval of intervals) {
    let from = interval.start;
    for (const slot of slots) {
      const start = slot * length;
      const end = start + length;
      if ((interval.start !== null && start < interval.start) || (interval.end !== null && end > interval.end)) continue;
      rest.add(from, start);
      taken.push(slot);
      from = end;
    }
    rest.add(from, interval.end);
  }
  return { taken, rest: rest.list };
}

/** Adjacent [start, end) intervals merged as they are added in order; empty ones dropped. */
class Intervals {
  readonly list: LiveInterval[] = [];

  add(start: number | null, end: number | null): void {
    if (start !== null && end !== null && start >= end) return;
    const previous = this.list.at(-1);
    if (previous && previous.end !== null && previous.end === start) previous.end = end;
    else this.list.push({ start, end });
  }
}

/** The day blocks of a period, and what they leave: its partial days, the days without a clean roll-up. */
function coverDays(range: DateRange, existing: readonly Block[], clean: (from: number, to: number) => boolean): { blocks: Block[]; rest: LiveInterval[] } {
  const start = range.start?.getTime() ?? null;
  const end = range.end ? range.end.getTime() + 1 : null;
  const has = new Set(existing.map((block) => key(block.level, block.start)));
  const days = existing.filter((block) => block.level === 0).map((block) => block.start);
  const whole = wholeDays(range);
  const first = whole.first ?? (days.length ? Math.min(...days) : null);
  const last = whole.last ?? (days.length ? Math.max(...days) : null);
  if (first === null || last === null || first > last || days.length === 0) return { blocks: [], rest: [{ start, end }] };
  const blocks: Block[] = [];
  const rest = new Intervals();
  rest.add(start, first * DAY_MS);
  for (let day = first; day <= last;) {
    let taken = -1;
    for (let level = 0; level <= MAX_LEVEL; level++) {
      const size = 2 ** level;
      if (day % size !== 0 || day + size - 1 > last) break;
      if (has.has(key(level, day)) && clean(day, day + size)) taken = level;
    }
    if (taken < 0) {
      rest.add(day * DAY_MS, (day + 1) * DAY_MS);
      day += 1;
    } else {
      blocks.push({ level: taken, start: day });
      day += 2 ** taken;
    }
  }
  rest.add((last + 1) * DAY_MS, end);
  return { blocks, rest: rest.list };
}

const key = (level: number, start: number) => `${level}:${start}`;
