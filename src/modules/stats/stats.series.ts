import { type Compilable, type Kysely, type RawBuilder, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { AppError } from '../../kernel/errors.js';
import { type BucketRange, floor, splitTime } from '../counts/buckets.js';
import { currentCounts, INTERACTION_COUNTS, unfolded } from '../counts/current.js';
import type { DateRange } from '../../kernel/dates.js';
import type { Interval, StatsResponse } from './stats.schemas.js';

type Db = Kysely<Database> | Transaction<Database>;

export const MAX_BUCKETS = 1000;
/** Buckets of the range when the request gives no start_date: two days of hours, a month of days. */
export const DEFAULT_BUCKETS: Record<Interval, number> = { hour: 48, day: 30 };
/** Platforms of the range listed in every bucket; the rest are summed in `other`. */
export const SERIES_PLATFORMS = 10;
const SIZE_MS: Record<Interval, number> = { hour: 3_600_000, day: 86_400_000 };

/**
 * The range a request with an interval covers (both ends inclusive): a missing end is now (or the
 * start, when it is later), a missing start the start of the bucket DEFAULT_BUCKETS - 1 buckets
 * before the end's. A range of more than MAX_BUCKETS buckets is a 400.
 */
export function seriesRange(range: DateRange, interval: Interval, now: Date): { start: Date; end: Date } {
  const end = range.end ?? new Date(Math.max(now.getTime(), range.start?.getTime() ?? -Infinity));
  const start = range.start
    ?? new Date(floor(interval, end.getTime()) - (DEFAULT_BUCKETS[interval] - 1) * SIZE_MS[interval]);
  const buckets = bucketCount(interval, start, end);
  if (buckets > MAX_BUCKETS) {
    const message = `would make ${buckets} ${interval} buckets from start_date to end_date; at most ${MAX_BUCKETS}`;
    throw new AppError('validation_error', `Invalid request: query.interval ${message}`, {
      details: [{ path: 'query.interval', message }],
    });
  }
  return { start, end };
}

function bucketCount(interval: Interval, start: Date, end: Date): number {
  return (floor(interval, end.getTime()) - floor(interval, start.getTime())) / SIZE_MS[interval] + 1;
}

interface SeriesRow {
  bucket: Date | string;
  platform_id: string;
  count: string | number;
}

/**
 * The interactions of [start, end] per UTC hour or day and platform, exactly, in one statement
 * (docs/interaction-counts.md): the whole hours from the counts of every interaction
 * (classification type '') by platform (their `platform_risk` level) at hour granularity, or day
 * granularity for the whole days, plus the not yet compacted deltas; the partial hours at the range's ends counted row by
 * row, each piece within one bucket. The buckets' totals therefore add up to the list's total of
 * the same bounds.
 */
export async function countSeries(
  db: Db, tenantId: string, interval: Interval, start: Date, end: Date,
): Promise<NonNullable<StatsResponse['series']>> {
  const byBucket = new Map<number, Map<string, number>>();
  const first = floor(interval, start.getTime());
  const last = floor(interval, end.getTime());
  for (let bucket = first; bucket <= last; bucket += SIZE_MS[interval]) byBucket.set(bucket, new Map());
  // Hour and day rows come back by their own bucket; each lands in the series bucket holding it.
  for (const row of (await seriesQuery(db, tenantId, interval, start, end).execute(db)).rows) {
    const platforms = byBucket.get(floor(interval, new Date(row.bucket).getTime()))!;
    platforms.set(row.platform_id, (platforms.get(row.platform_id) ?? 0) + Number(row.count));
  }
  const rangeTotals = new Map<string, number>();
  for (const platforms of byBucket.values()) {
    for (const [platform, count] of platforms) rangeTotals.set(platform, (rangeTotals.get(platform) ?? 0) + count);
  }
  const top = [...rangeTotals].filter(([, count]) => count > 0)
    .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : 1))
    .slice(0, SERIES_PLATFORMS).map(([platform]) => platform);
  return {
    interval,
    buckets: [...byBucket].map(([bucket, platforms]) => {
      const total = [...platforms.values()].reduce((sum, n) => sum + n, 0);
      const byPlatform = top.map((platform_id) => ({ platform_id, count: platforms.get(platform_id) ?? 0 }));
      return {
        start: new Date(bucket).toISOString(),
        total,
        by_platform: byPlatform,
        other: total - byPlatform.reduce((sum, { count }) => sum + count, 0),
      };
    }),
  };
}

/** The statement of countSeries: counts by (hour or day bucket, platform); exported for its plan's test. */
export function seriesQuery(db: Db, tenantId: string, interval: Interval, start: Date, end: Date) {
  const time = splitTime(start, end);
  const parts: Array<Compilable | RawBuilder<unknown>> = time.edges.flatMap((edge) => piecesOf(interval, edge.start, edge.end)).map((piece) =>
    db.selectFrom('interactions')
      .select([sql<Date>`${new Date(floor(interval, piece.start))}::timestamptz`.as('bucket'), 'platform_id',
        (eb) => eb.fn.countAll<string>().as('count')])
      .where('tenant_id', '=', tenantId)
      .where('timestamp', '>=', new Date(piece.start)).where('timestamp', '<=', new Date(piece.end))
      .groupBy('platform_id'));
  if (time.covered) {
    // Both ends are set, so the whole hours are a bounded [from, to).
    const from = time.covered.from!;
    const to = time.covered.to!;
    for (const range of interval === 'hour' ? [{ granularity: 'hour' as const, from, to }] : daysThenHours(from, to)) {
      parts.push(sql`select c.bucket, c.platform_id, c.count from ${currentCounts(INTERACTION_COUNTS, tenantId, range.granularity,
        new Date(range.from!), new Date(range.to!), sql`c.classification_type = '' and c.level = 'platform_risk'`, 'interaction_count_levels')} as c`);
    }
    parts.push(sql`select d.bucket, d.platform_id, d.count from interaction_count_deltas d
      where ${unfolded(INTERACTION_COUNTS)} and d.tenant_id = ${tenantId}
      and d.bucket >= ${new Date(from)} and d.bucket < ${new Date(to)} and d.classification_type = ''`);
  }
  // splitTime gives whole hours or edges (or both) for any range with both ends.
  return sql<SeriesRow>`select bucket, platform_id, sum(count) as count
    from (${sql.join(parts, sql` union all `)}) as part group by bucket, platform_id`;
}

/** An inclusive range of ms cut at the interval's boundaries (an edge of splitTime spans two hours at most). */
function piecesOf(interval: Interval, start: number, end: number): Array<{ start: number; end: number }> {
  const pieces = [];
  for (let from = start; from <= end;) {
    const next = floor(interval, from) + SIZE_MS[interval];
    pieces.push({ start: from, end: Math.min(end, next - 1) });
    from = next;
  }
  return pieces;
}

/** Whole hours [from, to) as the whole days inside them, and hours at their sides. */
function daysThenHours(from: number, to: number): BucketRange[] {
  const day = SIZE_MS.day;
  const firstDay = Math.ceil(from / day) * day;
  const lastDay = Math.floor(to / day) * day;
  if (firstDay >= lastDay) return [{ granularity: 'hour', from, to }];
  return [
    ...(from < firstDay ? [{ granularity: 'hour' as const, from, to: firstDay }] : []),
    { granularity: 'day', from: firstDay, to: lastDay },
    ...(lastDay < to ? [{ granularity: 'hour' as const, from: lastDay, to }] : []),
  ];
}
