import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { floor, riskBucketOf, splitRisk, splitTime } from '../../src/modules/counts/buckets.js';

const HOUR = 3_600_000;
// Risk scores as clients send them, and thresholds themselves, and their neighbours.
const score = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
  fc.integer({ min: 1, max: 9 }).map((n) => n / 10),
);
const anyInstant = fc.integer({ min: Date.UTC(2023, 10, 1), max: Date.UTC(2025, 2, 1) });
// Also bucket starts and their neighbours, where off-by-one mistakes live.
const instant = fc.oneof(anyInstant, fc.tuple(anyInstant, fc.constantFrom('hour', 'day', 'month') as fc.Arbitrary<'hour' | 'day' | 'month'>,
  fc.constantFrom(-1, 0, 1)).map(([at, granularity, shift]) => floor(granularity, at) + shift));

describe('splitRisk', () => {
  it('takes each score in the filter exactly once: in a whole bucket or in a partial slice', () => {
    fc.assert(fc.property(fc.option(score, { nil: undefined }), fc.option(score, { nil: undefined }), score, (min, max, value) => {
      const split = splitRisk(min, max);
      const inFilter = (min === undefined || value >= min) && (max === undefined || value <= max);
      const bucket = riskBucketOf(value);
      const inWhole = split.whole !== null && bucket >= split.whole.from && bucket <= split.whole.to;
      const inSlices = split.partial.filter((slice) =>
        (slice.min === undefined || value >= slice.min) && (slice.below === undefined || value < slice.below)).length;
      // A partial slice is a bucket's range; the filter's own bounds still apply to its rows.
      expect(inWhole ? 1 : inFilter ? inSlices : 0).toBe(inFilter ? 1 : 0);
      if (inWhole) expect(inSlices).toBe(0);
    }), { numRuns: 5000 });
  });

  it('answers filters on thresholds from whole buckets only', () => {
    expect(splitRisk(0.8, undefined)).toEqual({ whole: { from: 8, to: 9 }, partial: [] });
    expect(splitRisk(undefined, undefined)).toEqual({ whole: { from: 0, to: 9 }, partial: [] });
    expect(splitRisk(0.2, 0.6).partial).toEqual([{ min: 0.6, below: 0.7 }]);
    expect(splitRisk(0.85, 1)).toEqual({ whole: { from: 9, to: 9 }, partial: [{ min: 0.8, below: 0.9 }] });
  });
});

describe('splitTime', () => {
  it('takes each millisecond of the range exactly once: in a whole bucket or in an edge', () => {
    fc.assert(fc.property(fc.option(instant, { nil: undefined }), fc.option(instant, { nil: undefined }), instant,
      (start, end, at) => {
        fc.pre(start === undefined || end === undefined || start <= end);
        const split = splitTime(start === undefined ? undefined : new Date(start), end === undefined ? undefined : new Date(end));
        const inRange = (start === undefined || at >= start) && (end === undefined || at <= end);
        const inBuckets = split.buckets.filter((range) => {
          const bucket = floor(range.granularity, at);
          return (range.from === null || bucket >= range.from) && (range.to === null || bucket < range.to);
        }).length;
        const inEdges = split.edges.filter((edge) => at >= edge.start && at <= edge.end).length;
        expect(inBuckets + inEdges).toBe(inRange ? 1 : 0);
      }), { numRuns: 5000 });
  });

  it('uses months, days and hours, and leaves at most an hour at each end to count row by row', () => {
    const split = splitTime(new Date('2024-01-30T10:17:23.456Z'), new Date('2024-04-02T05:59:59.999Z'));
    expect(split.buckets.map((range) => [range.granularity, new Date(range.from!).toISOString(), new Date(range.to!).toISOString()]))
      .toEqual([
        ['hour', '2024-01-30T11:00:00.000Z', '2024-01-31T00:00:00.000Z'],
        ['day', '2024-01-31T00:00:00.000Z', '2024-02-01T00:00:00.000Z'],
        ['month', '2024-02-01T00:00:00.000Z', '2024-04-01T00:00:00.000Z'],
        ['day', '2024-04-01T00:00:00.000Z', '2024-04-02T00:00:00.000Z'],
        ['hour', '2024-04-02T00:00:00.000Z', '2024-04-02T06:00:00.000Z'],
      ]);
    expect(split.edges).toEqual([{ start: Date.parse('2024-01-30T10:17:23.456Z'), end: Date.parse('2024-01-30T11:00:00.000Z') - 1 }]);
    for (const edge of split.edges) expect(edge.end - edge.start).toBeLessThan(HOUR);
    expect(splitTime(undefined, undefined).buckets).toEqual([{ granularity: 'month', from: null, to: null }]);
  });
});
