import type { DateRange } from '../../kernel/dates.js';

/**
 * Which parts of a period the roll-ups answer and which the rows do (docs/platforms.md,
 * "Roll-ups"). Days are UTC days numbered from 1970-01-01; a roll-up covers an aligned block of
 * 2^level days (its start a multiple of 2^level), level 0 being one day. Pure: the SQL is in
 * rollup-read.ts.
 */

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
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

export interface RollupPlan {
  blocks: Block[];
  /** Hours with a clean roll-up, in the parts of the period the blocks leave. */
  hours: number[];
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
 * of its own (not rolled up yet, or dirty) is left to the hours, as are the period's partial
 * days at its ends. An unbounded end stops at the last rolled-up day. Then the whole hours of
 * what is left that have a roll-up, their day clean, come from the hour roll-ups; the rows take
 * the rest.
 */
export function planPeriod(range: DateRange, existing: readonly Block[], dirtyDays: readonly number[], hours: readonly number[] = []): RollupPlan {
  const dirty = [...dirtyDays].sort((a, b) => a - b);
  const clean = (from: number, to: number) => { // no dirty day in [from, to)
    const next = dirty.find((day) => day >= from);
    return next === undefined || next >= to;
  };
  const { blocks, rest } = coverDays(range, existing, clean);
  const cleanHours = hours.filter((hour) => clean(Math.floor(hour / 24), Math.floor(hour / 24) + 1)).sort((a, b) => a - b);
  const taken: number[] = [];
  const live = new Intervals();
  for (const interval of rest) {
    let from = interval.start;
    for (const hour of cleanHours) {
      const start = hour * HOUR_MS;
      const end = start + HOUR_MS;
      if ((interval.start !== null && start < interval.start) || (interval.end !== null && end > interval.end)) continue;
      live.add(from, start);
      taken.push(hour);
      from = end;
    }
    live.add(from, interval.end);
  }
  return { blocks, hours: taken, live: live.list };
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
