import type { Granularity } from '../../kernel/tables/counts.js';

/**
 * How a filter splits into whole aggregate buckets, counted from interaction_counts, and the
 * partial edges, counted row by row (docs/interaction-counts.md). Pure functions: the SQL
 * lives in sums.ts and in the callers.
 */

/** Lower bounds of risk buckets 1..9 (bucket 0 is [0, 0.1), bucket 9 is [0.9, 1]); the SQL function interaction_risk_bucket has the same. */
export const RISK_THRESHOLDS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] as const;
const RISK_BUCKETS = RISK_THRESHOLDS.length + 1;

/** The bucket of a score: how many thresholds are <= it, as SQL's width_bucket counts. */
export function riskBucketOf(score: number): number {
  return RISK_THRESHOLDS.filter((threshold) => threshold <= score).length;
}

/** A range of risk scores: `min <= score` (when set) and `score < below` (when set). */
export interface RiskSlice {
  min?: number;
  below?: number;
}

export interface RiskSplit {
  /** The buckets wholly inside the filter, as an inclusive range; null when none is. */
  whole: { from: number; to: number } | null;
  /** The parts of the other buckets the filter takes (with the filter's own bounds still applied). */
  partial: RiskSlice[];
}

/** Splits `min <= score <= max` (either side optional) into whole buckets and partial ones. */
export function splitRisk(min: number | undefined, max: number | undefined): RiskSplit {
  const lower = (k: number) => (k === 0 ? 0 : RISK_THRESHOLDS[k - 1]!);
  const wholeBuckets: number[] = [];
  const partial: RiskSlice[] = [];
  for (let k = 0; k < RISK_BUCKETS; k++) {
    const last = k === RISK_BUCKETS - 1;
    const aboveMin = min === undefined || min <= lower(k);
    const belowMax = max === undefined || (last ? max >= 1 : RISK_THRESHOLDS[k]! <= max);
    const reachedByMin = min === undefined || (last ? min <= 1 : min < RISK_THRESHOLDS[k]!);
    const reachedByMax = max === undefined || max >= lower(k);
    if (aboveMin && belowMax) wholeBuckets.push(k);
    else if (reachedByMin && reachedByMax) partial.push(last ? { min: lower(k) } : { min: lower(k), below: RISK_THRESHOLDS[k]! });
  }
  const whole = wholeBuckets.length ? { from: wholeBuckets[0]!, to: wholeBuckets.at(-1)! } : null;
  return { whole, partial };
}

const COARSEST_FIRST: Granularity[] = ['month', 'day', 'hour'];
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** [from, to) in epoch ms; null is unbounded. */
export interface BucketRange {
  granularity: Granularity;
  from: number | null;
  to: number | null;
}

/** An inclusive range of epoch ms, as the list's date filters are. */
export interface Edge {
  start: number;
  end: number;
}

export interface TimeSplit {
  /** The whole hours inside the range, [from, to), or null when there is none. */
  covered: { from: number | null; to: number | null } | null;
  /** `covered` as the fewest buckets: months, then days, then hours. */
  buckets: BucketRange[];
  /** What lies outside whole hours, to count row by row (at most two pieces of an hour or less). */
  edges: Edge[];
}

/**
 * Splits an inclusive date range (either side optional) into whole hours and edges. Stored
 * timestamps are whole milliseconds (a CHECK says so), so `timestamp <= end` is `timestamp < end + 1 ms`.
 */
export function splitTime(start: Date | undefined, end: Date | undefined): TimeSplit {
  const from = start === undefined ? null : ceil('hour', start.getTime());
  const endExclusive = end === undefined ? null : end.getTime() + 1;
  const to = endExclusive === null ? null : floor('hour', endExclusive);
  if (from !== null && to !== null && from >= to) {
    return { covered: null, buckets: [], edges: [{ start: start!.getTime(), end: end!.getTime() }] };
  }
  const edges: Edge[] = [];
  if (start !== undefined && start.getTime() < from!) edges.push({ start: start.getTime(), end: from! - 1 });
  if (endExclusive !== null && to! < endExclusive) edges.push({ start: to!, end: endExclusive - 1 });
  return { covered: { from, to }, buckets: cover(from, to, COARSEST_FIRST), edges };
}

/** [from, to) as buckets of the coarsest granularity that fits, then finer ones at its sides. */
function cover(from: number | null, to: number | null, granularities: Granularity[]): BucketRange[] {
  if (from !== null && to !== null && from >= to) return [];
  const [granularity, ...finer] = granularities as [Granularity, ...Granularity[]];
  if (finer.length === 0) return [{ granularity, from, to }];
  const wholeFrom = from === null ? null : ceil(granularity, from);
  const wholeTo = to === null ? null : floor(granularity, to);
  if (wholeFrom !== null && wholeTo !== null && wholeFrom >= wholeTo) return cover(from, to, finer);
  return [
    ...(from === null ? [] : cover(from, wholeFrom, finer)),
    { granularity, from: wholeFrom, to: wholeTo },
    ...(to === null ? [] : cover(wholeTo, to, finer)),
  ];
}

/** The start of the UTC hour, day or month holding `ms`. */
export function floor(granularity: Granularity, ms: number): number {
  if (granularity === 'hour') return Math.floor(ms / HOUR_MS) * HOUR_MS;
  if (granularity === 'day') return Math.floor(ms / DAY_MS) * DAY_MS;
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function ceil(granularity: Granularity, ms: number): number {
  const start = floor(granularity, ms);
  if (start === ms) return ms;
  if (granularity === 'hour') return start + HOUR_MS;
  if (granularity === 'day') return start + DAY_MS;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}
