import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/kernel/ids.js';
import { compactCounts } from '../../src/modules/counts/compaction.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { randomHash } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SIZE = { hour: HOUR, day: DAY } as const;
type Interval = keyof typeof SIZE;
const iso = (ms: number) => new Date(ms).toISOString();
const floorTo = (interval: Interval, ms: number) => Math.floor(ms / SIZE[interval]) * SIZE[interval];

/** 12 platforms, so that the series' ten leave some to `other`. */
const PLATFORMS = Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, '0')}`);
const BASE = Date.UTC(2024, 2, 10); // 2024-03-10T00:00:00Z

interface Row { ms: number; platform: string; risk: number; user: string | null }

/** Rows written straight to the table at exact instants (the counts' triggers count any write path). */
async function insertRows(h: Harness, tenantId: string, rows: Row[]) {
  for (let i = 0; i < rows.length; i += 500) {
    const values = rows.slice(i, i + 500).map((row) => sql`(${tenantId}, ${uuidv7(row.ms)}, ${new Date(row.ms)}, ${row.platform},
      ${randomHash()}, 'prompt', '{}', '[]', ${row.risk}, 'outbound', 'proxy', ${row.user}, '[]')`);
    await sql`insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type,
      content_metadata, classifications, risk_score, direction, source, user_id, policy_decisions)
      values ${sql.join(values)}`.execute(h.db);
  }
}

/**
 * Instants on and beside hour and day boundaries (one millisecond either side), and spread over
 * four days, on every platform (the first ones more often).
 */
function boundaryRows(): Row[] {
  const instants: number[] = [];
  for (let day = 0; day < 4; day++) {
    for (const hour of [0, 1, 7, 23]) {
      const at = BASE + day * DAY + hour * HOUR;
      instants.push(at - 1, at, at, at + 1, at + 30 * MINUTE, at + HOUR - 1);
    }
  }
  fc.sample(fc.integer({ min: -6 * HOUR, max: 4 * DAY + 6 * HOUR }), { numRuns: 300, seed: 7 }).forEach((offset) => instants.push(BASE + offset));
  return instants.map((ms, i) => ({ ms, platform: PLATFORMS[Math.min(i % 17, 11)]!, risk: (i % 11) / 10, user: null }));
}

describe.each(STORES)('stats series [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let rows: Row[];

  beforeAll(async () => {
    h = await Harness.start(kind, { env: { RATE_LIMIT_PER_MINUTE: '0' } });
    t = await h.tenant();
    rows = boundaryRows();
    await insertRows(h, t.tenantId, rows);
    // Another tenant's rows at the same instants, on the same platforms: never counted.
    await insertRows(h, (await h.tenant('Other')).tenantId, [...rows, ...rows]);
  }, 120_000);
  afterAll(async () => h.close());

  async function stats(query: Record<string, string>, token = t.adminToken) {
    return h.call('GET', '/api/v1/stats', { token, query });
  }

  async function listTotal(query: Record<string, string>) {
    const response = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { ...query, limit: '1' } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().total as number;
  }

  /** Every bucket's total, and its top platforms, equal the list's total over the bucket's bounds clipped to the range. */
  async function expectBucketsEqualList(interval: Interval, start: number, end: number) {
    const response = await stats({ interval, start_date: iso(start), end_date: iso(end) });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.start_date).toBe(iso(start));
    expect(body.end_date).toBe(iso(end));
    const { series } = body;
    expect(series.interval).toBe(interval);
    const starts = series.buckets.map((bucket: { start: string }) => Date.parse(bucket.start));
    const expectedStarts = [];
    for (let at = floorTo(interval, start); at <= end; at += SIZE[interval]) expectedStarts.push(at);
    expect(starts).toEqual(expectedStarts);
    let sum = 0;
    for (const bucket of series.buckets) {
      const at = Date.parse(bucket.start);
      const bounds = { start_date: iso(Math.max(at, start)), end_date: iso(Math.min(at + SIZE[interval] - 1, end)) };
      const context = `${interval} ${bucket.start} within ${iso(start)} .. ${iso(end)}`;
      expect(bucket.total, context).toBe(await listTotal(bounds));
      for (const { platform_id, count } of bucket.by_platform.slice(0, 2)) {
        expect(count, `${context} ${platform_id}`).toBe(await listTotal({ ...bounds, platform_id }));
      }
      expect(bucket.other + bucket.by_platform.reduce((n: number, p: { count: number }) => n + p.count, 0), context).toBe(bucket.total);
      sum += bucket.total;
    }
    expect(sum).toBe(body.interactions.total);
    expect(sum).toBe(await listTotal({ start_date: iso(start), end_date: iso(end) }));
    return body;
  }

  // Ranges on boundaries, a millisecond off them, within one hour, across two hours within one, and a day.
  const RANGES: Array<[string, number, number]> = [
    ['aligned on hours', BASE, BASE + 30 * HOUR - 1],
    ['starting and ending on a boundary (inclusive)', BASE + HOUR, BASE + 7 * HOUR],
    ['a millisecond off the boundaries', BASE + HOUR + 1, BASE + 23 * HOUR - 1],
    ['partial first and last hours', BASE - 20 * MINUTE, BASE + 26 * HOUR + 30 * MINUTE],
    ['within one hour', BASE + 7 * HOUR + 1, BASE + 7 * HOUR + 45 * MINUTE],
    ['across one hour boundary, shorter than an hour', BASE + 23 * HOUR + 30 * MINUTE, BASE + DAY + 20 * MINUTE],
    ['one instant', BASE + DAY, BASE + DAY],
  ];

  it.each(RANGES)('hour buckets equal the list\'s totals: %s', async (_name, start, end) => {
    await expectBucketsEqualList('hour', start, end);
  }, 120_000);

  const DAY_RANGES: Array<[string, number, number]> = [
    ['aligned on days', BASE, BASE + 4 * DAY - 1],
    ['whole days and partial ones, on hours', BASE - 6 * HOUR, BASE + 2 * DAY + 7 * HOUR],
    ['whole days and partial ones, off hours', BASE - 6 * HOUR - 1, BASE + 3 * DAY + 23 * HOUR + 30 * MINUTE],
    ['two partial days', BASE + 23 * HOUR + 1, BASE + DAY + HOUR + 1],
    ['a millisecond either side of a day boundary', BASE + DAY - 1, BASE + DAY],
  ];

  it.each(DAY_RANGES)('day buckets equal the list\'s totals: %s', async (_name, start, end) => {
    await expectBucketsEqualList('day', start, end);
  }, 120_000);

  it('stays exact once the counts are compacted, and lists the range\'s top ten platforms in every bucket', async () => {
    while (await compactCounts(h.db) > 0) { /* until every delta moved */ }
    await expectBucketsEqualList('hour', BASE - 20 * MINUTE, BASE + 26 * HOUR + 30 * MINUTE);
    const body = await expectBucketsEqualList('day', BASE - 6 * HOUR - 1, BASE + 3 * DAY + 23 * HOUR + 30 * MINUTE);
    const top = body.interactions.by_platform.slice(0, 10).map((p: { platform_id: string }) => p.platform_id);
    expect(top).toHaveLength(10);
    for (const bucket of body.series.buckets) {
      expect(bucket.by_platform.map((p: { platform_id: string }) => p.platform_id)).toEqual(top);
    }
    expect(body.series.buckets.some((bucket: { other: number }) => bucket.other > 0)).toBe(true);
  }, 120_000);

  it('counts every bucket as plain SQL does, for any range and interval (property)', async () => {
    const instant = fc.oneof(
      fc.constantFrom(...rows.map((row) => row.ms)).chain((ms) => fc.constantFrom(ms - 1, ms, ms + 1)),
      fc.integer({ min: BASE - DAY, max: BASE + 5 * DAY }),
      fc.integer({ min: -30, max: 130 }).map((hours) => BASE + hours * HOUR),
    );
    await fc.assert(fc.asyncProperty(fc.constantFrom<Interval>('hour', 'day'), instant, instant, async (interval, a, b) => {
      const [start, end] = a <= b ? [a, b] : [b, a];
      const response = await stats({ interval, start_date: iso(start), end_date: iso(end) });
      expect(response.statusCode, response.body).toBe(200);
      const { series } = response.json();
      // Written apart from the service: each row's bucket and platform, counted in JavaScript.
      const { rows: stored } = await sql<{ ms: string | number; platform_id: string }>`
        select (extract(epoch from timestamp) * 1000)::bigint as ms, platform_id from interactions
        where tenant_id = ${t.tenantId} and timestamp >= ${new Date(start)} and timestamp <= ${new Date(end)}`.execute(h.db);
      const expected = new Map<number, Map<string, number>>();
      for (let at = floorTo(interval, start); at <= end; at += SIZE[interval]) expected.set(at, new Map());
      for (const row of stored) {
        const platforms = expected.get(floorTo(interval, Number(row.ms)))!;
        platforms.set(row.platform_id, (platforms.get(row.platform_id) ?? 0) + 1);
      }
      const context = `${interval} ${iso(start)} .. ${iso(end)}`;
      expect(series.buckets.map((bucket: { start: string }) => bucket.start), context).toEqual([...expected.keys()].map(iso));
      for (const bucket of series.buckets) {
        const platforms = expected.get(Date.parse(bucket.start))!;
        expect(bucket.total, `${context} at ${bucket.start}`).toBe([...platforms.values()].reduce((n, c) => n + c, 0));
        for (const { platform_id, count } of bucket.by_platform) expect(count, `${context} ${platform_id}`).toBe(platforms.get(platform_id) ?? 0);
      }
    }), { numRuns: 60 });
  }, 300_000);

  it('defaults to the last 48 hours or 30 days ending now, and to the end\'s buckets when only end_date is given', async () => {
    for (const [interval, buckets] of [['hour', 48], ['day', 30]] as const) {
      const before = h.clock.now().getTime();
      const body = (await stats({ interval })).json();
      const after = h.clock.now().getTime();
      const end = Date.parse(body.end_date);
      expect(end).toBeGreaterThanOrEqual(before);
      expect(end).toBeLessThanOrEqual(after);
      expect(body.series.buckets).toHaveLength(buckets);
      expect(body.start_date).toBe(iso(floorTo(interval, end) - (buckets - 1) * SIZE[interval]));
      expect(body.series.buckets[0].start).toBe(body.start_date);
      expect(body.series.buckets.at(-1).start).toBe(iso(floorTo(interval, end)));

      const endDate = iso(BASE + 2 * DAY + 5 * HOUR + 17);
      const ending = (await stats({ interval, end_date: endDate })).json();
      expect(ending.end_date).toBe(endDate);
      expect(ending.series.buckets).toHaveLength(buckets);
      expect(ending.start_date).toBe(iso(floorTo(interval, Date.parse(endDate)) - (buckets - 1) * SIZE[interval]));
      expect(ending.interactions.total).toBe(await listTotal({ start_date: ending.start_date, end_date: endDate }));
      expect(ending.series.buckets.reduce((n: number, b: { total: number }) => n + b.total, 0)).toBe(ending.interactions.total);

      // A start after now: the range is that instant.
      const future = iso(h.clock.now().getTime() + 3 * DAY);
      const later = (await stats({ interval, start_date: future })).json();
      expect([later.start_date, later.end_date, later.series.buckets.length]).toEqual([future, future, 1]);
    }
    // Without an interval, nothing changes: no series, the whole history.
    const plain = (await stats({})).json();
    expect([plain.start_date, plain.end_date, plain.series]).toEqual([null, null, null]);
    expect(plain.interactions.total).toBe(rows.length);
  });

  it('accepts up to 1000 buckets and refuses more, and an unknown interval, with 400 validation_error', async () => {
    const cases: Array<[Record<string, string>, number | string]> = [
      [{ interval: 'hour', start_date: iso(BASE), end_date: iso(BASE + 999 * HOUR + HOUR - 1) }, 1000],
      [{ interval: 'hour', start_date: iso(BASE + HOUR - 1), end_date: iso(BASE + 999 * HOUR) }, 1000],
      [{ interval: 'hour', start_date: iso(BASE), end_date: iso(BASE + 1000 * HOUR) }, 'would make 1001 hour buckets'],
      [{ interval: 'hour', start_date: iso(BASE - 1), end_date: iso(BASE + 999 * HOUR) }, 'would make 1001 hour buckets'],
      [{ interval: 'hour', start_date: '2020-01-01T00:00:00Z' }, 'hour buckets'],
      [{ interval: 'day', start_date: iso(BASE), end_date: iso(BASE + 1000 * DAY - 1) }, 1000],
      [{ interval: 'day', start_date: iso(BASE), end_date: iso(BASE + 1000 * DAY) }, 'would make 1001 day buckets'],
      [{ interval: 'day', start_date: '1990-01-01T00:00:00Z', end_date: '2024-01-01T00:00:00Z' }, 'day buckets'],
      [{ interval: 'week' }, 'must be one of hour, day'],
      [{ interval: 'HOUR' }, 'must be one of hour, day'],
      [{ interval: '' }, 'must be one of hour, day'],
    ];
    for (const [query, expected] of cases) {
      const response = await stats(query);
      if (typeof expected === 'number') {
        expect(response.statusCode, JSON.stringify(query)).toBe(200);
        expect(response.json().series.buckets).toHaveLength(expected);
        continue;
      }
      expect(response.statusCode, JSON.stringify(query)).toBe(400);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['code', 'details', 'error']);
      expect(body.code).toBe('validation_error');
      expect(body.error).toMatch(/^Invalid request: query\.interval /);
      expect(body.details).toEqual([{ path: 'query.interval', message: expect.stringContaining(expected) }]);
    }
    // The date checks still come first.
    const inverted = await stats({ interval: 'day', start_date: iso(BASE + DAY), end_date: iso(BASE) });
    expect(inverted.statusCode).toBe(400);
    expect(inverted.json().details[0].path).toBe('query.start_date');
  });

  it('adds up to the total of the same response while interactions are created and compacted concurrently', async () => {
    const busy = await h.tenant('Busy');
    let stop = false;
    let rounds = 0;
    const writer = (async () => {
      for (let round = 0; !stop; round++, rounds++) {
        const body = Array.from({ length: 20 }, (_, i) => ({ platform_id: PLATFORMS[(round + i) % 12], content_hash: randomHash() }));
        const response = await h.call('POST', '/api/v1/interactions/batch', { token: busy.adminToken, body });
        expect(response.statusCode, response.body).toBe(200);
        if (round % 2 === 0) await compactCounts(h.db);
        h.clock.advance(7 * MINUTE);
      }
    })();
    try {
      for (let read = 0; read < 30 || rounds < 5; read++) {
        const body = (await h.call('GET', '/api/v1/stats', { token: busy.adminToken, query: { interval: read % 2 ? 'hour' : 'day' } })).json();
        const buckets = body.series.buckets as Array<{ total: number; by_platform: Array<{ platform_id: string }> }>;
        expect(buckets.reduce((n, bucket) => n + bucket.total, 0)).toBe(body.interactions.total);
        expect(buckets[0]!.by_platform.map((p) => p.platform_id))
          .toEqual(body.interactions.by_platform.slice(0, 10).map((p: { platform_id: string }) => p.platform_id));
        // Leaves the writer a turn: on the embedded store, the two share one connection.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      stop = true;
      await writer;
      h.clock.reset();
    }
  }, 300_000);

  it('is for admins and viewers: anonymous callers get 401, API keys 403', async () => {
    const viewer = await h.user(t, 'viewer');
    expect((await stats({ interval: 'hour' }, viewer.token)).statusCode).toBe(200);
    const anonymous = await h.call('GET', '/api/v1/stats', { query: { interval: 'hour' } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('unauthorized');
    const key = await h.apiKey(t, ['interactions:read']);
    expect((await stats({ interval: 'day' }, key)).statusCode).toBe(403);
  });
});
