import { expectedRanking } from '../helpers/people-ranking.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { lastClosedDay, rollUpUsage } from '../../src/modules/rollups/usage-rollups.job.js';
import { planOf } from '../../src/modules/rollups/rollup-read.js';
import { inTenants } from '../../src/platform/store/tenant-scope.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const USERS = [1, 2, 3, 4, 5].map((k) => `0190a0a0-0000-7000-8000-0000000000c${k}`);
const PLATFORMS = ['openai', 'deepseek', 'acme-notes-ai'];
const TYPES = ['EMAIL', 'IBAN', 'CREDIT_CARD', 'PHONE'];

interface Created { id: string; user_id: string | null; platform_id: string; risk_score: number; types: string[]; timestamp: string }

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Usage's users and people at risk read closed days from roll-ups and the rest from the rows: the
// figures equal a count of the interactions kept here, before and after the job, after deletes
// (dirty days), for ranges on and off day boundaries; the job is idempotent and safe twice at once.
describe.each(STORES)('usage roll-ups [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let created: Created[] = [];
  const next = random(20260311);
  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    await createPolicy(h, t, { name: 'No cards', action: 'block', conditions: { classification_types: ['CREDIT_CARD'] } });
    const status = await h.call('PUT', '/api/v1/platforms/openai/status', { token: t.adminToken, body: { status: 'sanctioned' } });
    expect(status.statusCode).toBe(200);
    const key = await h.apiKey(t, ['interactions:write']);
    // ~6 days of interactions, 2 h 53 min apart: every day has some, none starts on a boundary.
    const step = 2 * HOUR + 53 * 60_000;
    for (let i = 0; i < 48; i += 1) {
      const user_id = next() < 0.1 ? null : USERS[Math.floor(next() * USERS.length)]!;
      const platform_id = PLATFORMS[Math.floor(next() * PLATFORMS.length)]!;
      const risk_score = Math.round(next() * 100) / 100;
      const types = TYPES.filter(() => next() < 0.3);
      const response = await h.call('POST', '/api/v1/interactions', {
        token: key, body: interactionBody({ platform_id, risk_score, classifications: types.map((type) => classification(type)),
          ...(user_id ? { user_id } : {}) }),
      });
      expect(response.statusCode, response.body).toBe(201);
      created.push({ id: response.json().id, user_id, platform_id, risk_score, types, timestamp: response.json().timestamp });
      h.clock.advance(step);
    }
    h.clock.advance(-step * created.length);
  });
  afterAll(async () => h.close());

  const within = (c: Created, start?: string, end?: string) => (!start || c.timestamp >= start) && (!end || c.timestamp <= end);
  /** Per platform used in the range: distinct users, interactions (with or without a user), those of risk_score >= 0.7. */
  const expectedUsage = (start?: string, end?: string) => Object.fromEntries(PLATFORMS.map((id) => {
    const of = created.filter((c) => c.platform_id === id && within(c, start, end));
    return [id, { users: new Set(of.filter((c) => c.user_id).map((c) => c.user_id)).size, interactions: of.length,
      high_risk: of.filter((c) => c.risk_score >= 0.7).length }];
  }).filter(([, usage]) => (usage as { interactions: number }).interactions > 0));
  const expectedPeople = (start?: string, end?: string) => expectedRanking(created, start, end);


  /** Ranges on stored timestamps and a millisecond beside them, on day boundaries, anywhere, and unbounded. */
  const ranges = (): Array<[string | undefined, string | undefined]> => {
    const times = created.map((c) => Date.parse(c.timestamp));
    const first = Math.min(...times);
    const last = Math.max(...times);
    const pick = () => {
      const base = times[Math.floor(next() * times.length)]!;
      const choice = Math.floor(next() * 4);
      if (choice === 0) return base + Math.floor(next() * 3) - 1;
      if (choice === 1) return Math.floor(base / DAY) * DAY;
      if (choice === 2) return Math.ceil(base / DAY) * DAY - 1;
      return first + Math.floor(next() * (last - first));
    };
    const list: Array<[string | undefined, string | undefined]> = [[undefined, undefined],
      [new Date(Math.floor(first / DAY) * DAY).toISOString(), new Date(Math.ceil(last / DAY) * DAY - 1).toISOString()]];
    for (let i = 0; i < 8; i += 1) {
      const [a, b] = [pick(), pick()].sort((x, y) => x - y);
      const open = Math.floor(next() * 4);
      list.push([open === 1 ? undefined : new Date(a!).toISOString(), open === 2 ? undefined : new Date(b!).toISOString()]);
    }
    return list;
  };

  async function expectExact(phase: string, list = ranges()) {
    for (const [start, end] of list) {
      const query = { ...(start ? { start_date: start } : {}), ...(end ? { end_date: end } : {}) };
      const usage = await h.call('GET', '/api/v1/platforms/usage', { token: t.adminToken, query });
      expect(usage.statusCode, usage.body).toBe(200);
      const figures = Object.fromEntries(usage.json().platforms.map((p: { platform_id: string; users: number; interactions: number; high_risk: number }) =>
        [p.platform_id, { users: p.users, interactions: p.interactions, high_risk: p.high_risk }]));
      expect(figures, `${phase} usage ${JSON.stringify(query)}`).toEqual(expectedUsage(start, end));
      const people = await h.call('GET', '/api/v1/people/risk', { token: t.adminToken, query: { ...query, limit: 500 } });
      expect(people.statusCode, people.body).toBe(200);
      expect(people.json().people, `${phase} people ${JSON.stringify(query)}`).toEqual(expectedPeople(start, end));
      await expectWalks(`${phase} ${JSON.stringify(query)}`, query, expectedPeople(start, end));
    }
  }

  /** Pages of two, by cursor and by page number, give the ranking in order, ties by user id descending. */
  async function expectWalks(what: string, query: Record<string, string>, expected: unknown[]) {
    const byCursor: unknown[] = [];
    let cursor: string | undefined;
    do {
      const response = await h.call('GET', '/api/v1/people/risk', { token: t.adminToken, query: { ...query, limit: 2, ...(cursor ? { cursor } : {}) } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().total, what).toBe(expected.length);
      byCursor.push(...response.json().people);
      cursor = response.json().next_cursor ?? undefined;
    } while (cursor);
    expect(byCursor, `${what} by cursor`).toEqual(expected);
    const byPage: unknown[] = [];
    for (let page = 1; page <= Math.ceil(expected.length / 2) + 1; page += 1) {
      const response = await h.call('GET', '/api/v1/people/risk', { token: t.adminToken, query: { ...query, limit: 2, page } });
      expect(response.json().total, what).toBe(expected.length);
      byPage.push(...response.json().people);
    }
    expect(byPage, `${what} by page`).toEqual(expected);
  }

  const lastNow = () => new Date(Math.max(...created.map((c) => Date.parse(c.timestamp))));
  const rollupRows = async (tenantId = t.tenantId) => (await sql<{ level: number; rows: number }>`
    select level, count(*)::int as rows from usage_rollups where tenant_id = ${tenantId} group by level order by level`.execute(h.db)).rows;
  const rolledUpSlots = async (minutes: number, from: number) => (await sql<{ slot: number }>`
    select slot from usage_rollup_slots where tenant_id = ${t.tenantId} and minutes = ${minutes} and slot >= ${from} order by slot`
    .execute(h.db)).rows.map((row) => row.slot);
  const dirtyDays = async () => (await sql<{ day: string }>`
    select day::text from usage_rollup_dirty_days where tenant_id = ${t.tenantId} order by day`.execute(h.db)).rows.map((row) => row.day);

  it('counts from the rows before any roll-up, and from roll-ups and rows after, with the same figures', async () => {
    await expectExact('before the job');
    const run = await rollUpUsage(h.deps.store.db, lastNow(), [t.tenantId]);
    const closedDays = lastClosedDay(lastNow()) - Math.floor(Date.parse(created[0]!.timestamp) / DAY) + 1;
    expect(run.days).toBe(closedDays);
    // Every block of 2^level closed days aligned on its size, at every level, from one pass.
    const firstDay = Math.floor(Date.parse(created[0]!.timestamp) / DAY);
    const blocks = Array.from({ length: 13 }, (_, level) => ({
      level, rows: Math.floor((firstDay + closedDays) / 2 ** level) - Math.ceil(firstDay / 2 ** level),
    })).filter((block) => block.rows > 0);
    expect(await rollupRows()).toEqual(blocks);
    expect(run.blocks).toBe(blocks.slice(1).reduce((sum, block) => sum + block.rows, 0));
    await expectExact('after the job');
    expect(await rollUpUsage(h.deps.store.db, lastNow(), [t.tenantId])).toEqual({ days: 0, slots: 0, blocks: 0 });
  });

  it('counts a day changed after its roll-up from its rows until the job rolls it up again', async () => {
    await rollUpUsage(h.deps.store.db, lastNow(), [t.tenantId]);
    // Every interaction of one user on one closed day: a stale roll-up would still count them.
    const closed = lastClosedDay(lastNow());
    const victim = created.find((c) => c.user_id && Math.floor(Date.parse(c.timestamp) / DAY) < closed)!;
    const day = Math.floor(Date.parse(victim.timestamp) / DAY);
    const doomed = created.filter((c) => c.user_id === victim.user_id && Math.floor(Date.parse(c.timestamp) / DAY) === day);
    for (const c of doomed) {
      expect((await h.call('DELETE', `/api/v1/interactions/${c.id}`, { token: t.adminToken })).statusCode).toBe(204);
    }
    created = created.filter((c) => !doomed.includes(c));
    expect(await dirtyDays()).toEqual([new Date(day * DAY).toISOString().slice(0, 10)]);
    expect((await rollupRows()).length).toBeGreaterThan(1); // the day and blocks above it are still there, stale
    await expectExact('dirty day');
    // Two workers at once: one rolls the day up again, the other finds nothing left or waits its turn.
    const runs = await Promise.all([rollUpUsage(h.deps.store.db, lastNow(), [t.tenantId]), rollUpUsage(h.deps.store.db, lastNow(), [t.tenantId])]);
    expect(runs.reduce((sum, run) => sum + run.days, 0)).toBeGreaterThanOrEqual(1);
    expect(await dirtyDays()).toEqual([]);
    await expectExact('rolled up again');
  });

  it('keeps the figures exact across a day boundary as the job rolls up the day that just ended', async () => {
    const key = await h.apiKey(t, ['interactions:write']);
    const end = lastNow();
    const midnight = Math.ceil(end.getTime() / DAY) * DAY;
    for (const [at, user_id, platform_id] of [[midnight - 60_000, USERS[0]!, 'deepseek'], [midnight + 60_000, USERS[4]!, 'acme-notes-ai']] as const) {
      h.clock.advance(at - h.clock.now().getTime());
      const response = await h.call('POST', '/api/v1/interactions', {
        token: key, body: interactionBody({ platform_id, user_id, risk_score: 0.9, classifications: [classification('IBAN')] }),
      });
      expect(response.statusCode, response.body).toBe(201);
      created.push({ id: response.json().id, user_id, platform_id, risk_score: 0.9, types: ['IBAN'], timestamp: response.json().timestamp });
    }
    h.clock.reset();
    await expectExact('new day, not rolled up');
    const rolled = await rollUpUsage(h.deps.store.db, new Date(midnight + 11 * 60_000), [t.tenantId]);
    expect(rolled.days).toBeGreaterThanOrEqual(1);
    await expectExact('new day, rolled up');
  });

  it('reads the open day\'s closed hours and 5-minute slots from their roll-ups, and a changed one from its rows until the job rolls it up again', async () => {
    const key = await h.apiKey(t, ['interactions:write']);
    const day = Math.floor(lastNow().getTime() / DAY) + 2; // a day without interactions yet
    const plan = [[0.5, USERS[0]!, 'openai'], [1.5, USERS[3]!, 'acme-notes-ai'], [2.5, USERS[1]!, 'deepseek'], [3.5, USERS[2]!, 'openai']] as const;
    const mine: Created[] = [];
    for (const [hours, user_id, platform_id] of plan) {
      h.clock.advance(day * DAY + hours * HOUR - h.clock.now().getTime());
      const response = await h.call('POST', '/api/v1/interactions', {
        token: key, body: interactionBody({ platform_id, user_id, risk_score: 0.9, classifications: [classification('IBAN')] }),
      });
      expect(response.statusCode, response.body).toBe(201);
      mine.push({ id: response.json().id, user_id, platform_id, risk_score: 0.9, types: ['IBAN'], timestamp: response.json().timestamp });
    }
    h.clock.reset();
    created.push(...mine);
    // 10 minutes' margin: hours 0, 1 and 2 closed with their 5-minute slots, and those of hour 3 up to 03:40.
    const now = new Date(day * DAY + 3 * HOUR + 50 * 60_000);
    const run = await rollUpUsage(h.deps.store.db, now, [t.tenantId]);
    expect(run.slots).toBeGreaterThanOrEqual(3 + 8);
    expect(await rolledUpSlots(60, day * 24)).toEqual([day * 24, day * 24 + 1, day * 24 + 2]);
    expect(await rolledUpSlots(5, day * 288)).toEqual(Array.from({ length: 36 + 8 }, (_, k) => day * 288 + k));
    const iso = (ms: number) => new Date(ms).toISOString();
    // A period from 00:15 to 03:45: its first partial hour from blocks of 5 minutes, then hours, then the open hour's blocks.
    const parts = await inTenants([t.tenantId], () => h.deps.store.db.transaction().execute((tx) =>
      planOf(tx, t.tenantId, { start: new Date(day * DAY + 15 * 60_000), end: new Date(day * DAY + 3 * HOUR + 45 * 60_000) })));
    expect(parts.slots).toEqual([
      { minutes: 60, slot: day * 24 + 1 }, { minutes: 60, slot: day * 24 + 2 },
      { minutes: 30, slot: day * 48 + 1 }, { minutes: 30, slot: day * 48 + 6 },
      { minutes: 15, slot: day * 96 + 1 },
      { minutes: 5, slot: day * 288 + 42 }, { minutes: 5, slot: day * 288 + 43 },
    ]);
    // The blocks of hours of a closed part of the day: 00:00 to 03:00 in one roll-up of 3 hours.
    expect(await rolledUpSlots(180, day * 8)).toEqual([day * 8]);
    expect(parts.live).toEqual([{ start: day * DAY + 3 * HOUR + 40 * 60_000, end: day * DAY + 3 * HOUR + 45 * 60_000 + 1 }]);
    const within: Array<[string | undefined, string | undefined]> = [
      [iso(day * DAY + 15 * 60_000), iso(day * DAY + 3 * HOUR + 45 * 60_000)], [iso(day * DAY + HOUR), undefined],
      [iso(day * DAY + 3 * HOUR + 25 * 60_000), iso(day * DAY + 3 * HOUR + 35 * 60_000 - 1)],
      [iso(day * DAY - DAY / 2), iso(day * DAY + 2 * HOUR + 59 * 60_000)], [undefined, iso(now.getTime())]];
    await expectExact('open day, hours rolled up', within);
    // Deleted after their hour and 5-minute slot were rolled up: stale roll-ups would still count these people.
    for (const gone of [mine[1]!, mine[3]!]) {
      expect((await h.call('DELETE', `/api/v1/interactions/${gone.id}`, { token: t.adminToken })).statusCode).toBe(204);
    }
    created = created.filter((c) => c.id !== mine[1]!.id && c.id !== mine[3]!.id);
    expect(await dirtyDays()).toEqual([iso(day * DAY).slice(0, 10)]);
    await expectExact('open day, a slot changed', within);
    await rollUpUsage(h.deps.store.db, now, [t.tenantId]);
    expect(await dirtyDays()).toEqual([]);
    await expectExact('open day, rolled up again', within);
  });

  it('leaves an erased person out of the ranking, its total and its pages, rolled up or not', async () => {
    await rollUpUsage(h.deps.store.db, lastNow(), [t.tenantId]);
    const gone = expectedPeople()[0]!.user_id;
    const erased = await h.call('POST', `/api/v1/users/${gone}/erase-interactions`, { token: t.adminToken });
    expect(erased.statusCode, erased.body).toBe(200);
    created = created.filter((c) => c.user_id !== gone);
    await expectExact('erased, not rolled up again');
    await rollUpUsage(h.deps.store.db, lastNow(), [t.tenantId]);
    await expectExact('erased, rolled up again');
  });

  it('deletes the slots of every length once they are more than 35 days old, and the figures stay exact', async () => {
    await rollUpUsage(h.deps.store.db, lastNow(), [t.tenantId]);
    const newest = Math.floor(lastNow().getTime() / DAY);
    const slotsOf = async (day: number) => (await sql<{ minutes: number; slots: number }>`
      select minutes, count(*)::int as slots from usage_rollup_slots
      where tenant_id = ${t.tenantId} and slot >= ${day * 1440}::int / minutes and slot < ${(day + 1) * 1440}::int / minutes
      group by minutes order by minutes`.execute(h.db)).rows;
    expect(await slotsOf(newest - 1)).toEqual([5, 15, 30, 60, 180, 360, 720].map((minutes) => ({ minutes, slots: 1440 / minutes })));
    await rollUpUsage(h.deps.store.db, new Date((newest + 37) * DAY + HOUR), [t.tenantId]);
    expect(await slotsOf(newest - 1)).toEqual([]);
    await expectExact('slots deleted');
  });

  it('builds the blocks of every level in one pass, each from the two halves the pass built below it', async () => {
    const other = await h.tenant();
    const key = await h.apiKey(other, ['interactions:write']);
    // 16 days from a multiple of 16, one interaction each: blocks of 1, 2, 4, 8 and 16 days.
    const first = (Math.floor(h.clock.now().getTime() / DAY / 16) - 4) * 16;
    const offset = h.clock.now().getTime();
    for (let day = first; day < first + 16; day += 1) {
      h.clock.advance(day * DAY + 12 * HOUR - h.clock.now().getTime());
      const response = await h.call('POST', '/api/v1/interactions', { token: key, body: interactionBody({ platform_id: 'openai' }) });
      expect(response.statusCode, response.body).toBe(201);
    }
    h.clock.advance(offset - h.clock.now().getTime());
    const run = await rollUpUsage(h.deps.store.db, new Date((first + 16) * DAY + HOUR), [other.tenantId]);
    expect(run.blocks).toBe(8 + 4 + 2 + 1);
    expect(await rollupRows(other.tenantId)).toEqual([16, 8, 4, 2, 1].map((rows, level) => ({ level, rows })));
    const usage = await h.call('GET', '/api/v1/platforms/usage', { token: other.adminToken, query: {
      start_date: new Date(first * DAY).toISOString(), end_date: new Date((first + 16) * DAY - 1).toISOString() } });
    expect(usage.json().platforms.map((p: { platform_id: string; interactions: number }) => [p.platform_id, p.interactions])).toEqual([['openai', 16]]);
  });
});
