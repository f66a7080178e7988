import type { DateRange } from '../../kernel/dates.js';

/**
 * Which parts of a period the roll-ups answer and which the rows do (docs/platforms.md,
 * "Roll-ups"). Days are UTC days numbered from 1970-01-01; a roll-up covers an aligned block of
 * 2^level days (its start a multiple of 2^level), level 0 being one day. Pure: the SQL is in
 * rollup-read.ts.
 */

export const DAY_MS = 86_400_000;
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
 * of its own (not rolled up yet, or dirty) is counted from the rows, as are the period's partial
 * days at its ends. An unbounded end stops at the last rolled-up day, the rows taking the rest.
 */
export function planPeriod(range: DateRange, existing: readonly Block[], dirtyDays: readonly number[]): RollupPlan {
  const start = range.start?.getTime() ?? null;
  const end = range.end ? range.end.getTime() + 1 : null;
  const has = new Set(existing.map((block) => key(block.level, block.start)));
  const days = existing.filter((block) => block.level === 0).map((block) => block.start);
  const whole = wholeDays(range);
  const first = whole.first ?? (days.length ? Math.min(...days) : null);
  const last = whole.last ?? (days.length ? Math.max(...days) : null);
  if (first === null || last === null || first > last || days.length === 0) return { blocks: [], live: [{ start, end }] };
  const dirty = [...dirtyDays].sort((a, b) => a - b);
  const clean = (from: number, to: number) => { // no dirty day in [from, to)
    const next = dirty.find((day) => day >= from);
    return next === undefined || next >= to;
  };
  const blocks: Block[] = [];
  const live: LiveInterval[] = [];
  const addLive = (from: number | null, to: number | null) => {
    if (from !== null && to !== null && from >= to) return;
    const previous = live.at(-1);
    if (previous && previous.end !== null && previous.end === from) previous.end = to;
    else live.push({ start: from, end: to });
  };
  addLive(start, first * DAY_MS);
  for (let day = first; day <= last;) {
    let taken = -1;
    for (let level = 0; level <= MAX_LEVEL; level++) {
      const size = 2 ** level;
      if (day % size !== 0 || day + size - 1 > last) break;
      if (has.has(key(level, day)) && clean(day, day + size)) taken = level;
    }
    if (taken < 0) {
      addLive(day * DAY_MS, (day + 1) * DAY_MS);
      day += 1;
    } else {
      blocks.push({ level: taken, start: day });
      day += 2 ** taken;
    }
  }
  addLive((last + 1) * DAY_MS, end);
  return { blocks, live };
}

const key = (level: number, start: number) => `${level}:${start}`;
