// AI platform usage and people at risk on the queries seed (BENCH_QUERIES=platforms): GET /api/v1/platforms/usage
// and GET /api/v1/people/risk over the seed's last day, 7 days, 30 days and whole range, p95 at concurrency 4
// beside the p95 of a 404 of the same run. Each answer is checked against the lists: a platform's usage equals the
// list's total for that platform and period, and the first person's `high_risk` the list's total of their
// interactions of risk_score >= 0.7. A period people at risk refuses (too many interactions to rank) is reported
// as refused, with the number the service gave.
// Then the open day, as a customer's periods end: a day's share of the seed's rows sent through the batch API
// with today's timestamps (not rolled up: counted from the rows), and the same periods ending now, so that the
// rows of today and of the partial first day are in every answer.
import { createHash } from 'node:crypto';
import { get, latency, send } from './queries-measure.mjs';
import { PLATFORMS, SPAN_DAYS, TYPES } from './queries-seed.mjs';
import { asUuid, md5 } from './queries-shapes.mjs';
import { figure } from './report.mjs';
import { ADMIN, apiKey, login, startService } from './service.mjs';

const DAY_MS = 86_400_000;
const TARGET = 100;

const BATCH = 500;
const SENDERS = 4;
/** The seed's users (queries-seed.mjs: md5('user' || k)::uuid, 5,000 of them). */
const SEED_USERS = 5000;

const periodsOf = (end) => [
  ['last day', new Date(end.getTime() - DAY_MS)],
  ['last 7 days', new Date(end.getTime() - 7 * DAY_MS)],
  ['last 30 days', new Date(end.getTime() - 30 * DAY_MS)],
  ['whole range', undefined],
].map(([name, start]) => ({ name, query: start ? `start_date=${start.toISOString()}&end_date=${end.toISOString()}` : '' }));

const weighted = (choices, i, salt) => {
  const draw = Number.parseInt(md5(`${salt}:${i}`).slice(0, 8), 16) % 10000;
  return choices.find(([, upTo]) => draw < upTo)[0];
};

/** The i-th interaction of the open day, by one of the seed's users, at `at`. */
const openDayItem = (i, at) => ({
  timestamp: at.toISOString(), platform_id: weighted(PLATFORMS, i, 'platform'),
  content_hash: createHash('sha256').update(`open day ${at.getTime()} ${i}`).digest('hex'),
  risk_score: i % 3 === 0 ? 0 : Math.round((0.05 + 0.95 * ((i * 37) % 100) / 100) * 100) / 100,
  source: i % 3 ? 'browser_extension' : 'proxy', direction: i % 5 < 3 ? 'outbound' : 'inbound',
  user_id: i % 10 === 9 ? undefined : asUuid(md5(`user${(i * 7919) % SEED_USERS}`)),
  classifications: i % 3 === 0 ? [] : [{ type: weighted(TYPES, i, 'type'), value: `open-day-${i}`, score: 0.9, start: 0, end: 10 }],
});

/** Sends a day's share of the seed's rows, spread from `since` to `until`, through the batch API; returns how many. */
async function sendOpenDay(base, token, rows, since, until) {
  const key = await apiKey(base, token);
  const count = Math.round(rows / SPAN_DAYS);
  let next = 0;
  await Promise.all(Array.from({ length: SENDERS }, async () => {
    while (next < count) {
      const lo = next;
      next = Math.min(count, next + BATCH);
      const items = Array.from({ length: next - lo }, (_, k) => openDayItem(lo + k, new Date(since + Math.floor((until - since) * (lo + k) / count))));
      const answer = await send(base, key, { method: 'POST', path: '/api/v1/interactions/batch', body: items });
      if (answer.status !== 200 && answer.status !== 201 && answer.status !== 207) throw new Error(`batch: ${answer.status} ${answer.body.slice(0, 200)}`);
      const { stored } = JSON.parse(answer.body);
      if (stored !== items.length) throw new Error(`batch of ${items.length}: ${stored} stored`);
    }
  }));
  return count;
}

const totalOf = async (base, token, query) => JSON.parse((await get(base, token, `/api/v1/interactions?${query}&limit=1`)).body).total;

/** 0 when the answer agrees with the lists, else how many of its numbers differ. */
async function wrongFigures(base, token, kind, body, periodQuery) {
  const and = periodQuery ? `&${periodQuery}` : '';
  if (kind === 'usage') {
    const top = body.platforms?.[0] ?? body.data?.[0];
    if (!top) return 1;
    return Number(top.interactions !== await totalOf(base, token, `platform_id=${encodeURIComponent(top.platform_id)}${and}`));
  }
  const first = body.people?.[0];
  if (!first) return 1;
  return Number(first.high_risk !== await totalOf(base, token, `user_id=${first.user_id}&risk_score_min=0.7${and}`));
}

async function measurePeriods(table, base, token, periods, floor, suffix) {
  for (const period of periods) {
    for (const [kind, path] of [['usage', '/api/v1/platforms/usage'], ['people', '/api/v1/people/risk']]) {
      const url = `${path}${period.query ? `?${period.query}` : ''}`;
      const scenario = `${kind === 'usage' ? 'platforms usage' : 'people at risk'}, ${period.name}${suffix}`;
      const first = await get(base, token, url);
      if (first.status !== 200) {
        const reason = JSON.parse(first.body).details?.[0]?.message ?? first.body.slice(0, 120);
        table.push(figure({ scenario, name: `refused ${first.status}: ${reason}`, value: NaN }));
        continue;
      }
      table.push(figure({ scenario, name: 'figures not equal to the lists\' totals', value: await wrongFigures(base, token, kind, JSON.parse(first.body), period.query), target: { op: '==', value: 0 } }));
      const timed = await latency(base, token, url, { requests: 100 });
      table.push(figure({ scenario, name: 'p95 ms', value: timed.p95, limit: floor.p95, limitIs: 'p95 of a 404', target: { op: '<=', value: TARGET } }));
    }
  }
}

export async function platformsAndPeople(label, seed, rows) {
  const table = [];
  const service = await startService(seed.env);
  try {
    const token = await login(service.base, ADMIN);
    const unknown = `/api/v1/interactions/${asUuid(md5('unknown'))}`;
    await latency(service.base, token, unknown, { requests: 100, expect: 404 });
    const floor = await latency(service.base, token, unknown, { expect: 404 });
    await measurePeriods(table, service.base, token, periodsOf(seed.end), floor, '');
    // A minute back from now: the rows sent are all in the past when the periods are read.
    const until = Date.now() - 60_000;
    const sent = await sendOpenDay(service.base, token, rows, seed.end.getTime(), until);
    console.log(`  sent ${sent.toLocaleString('en')} interactions of the open day through the batch API; measuring at once`);
    await measurePeriods(table, service.base, token, periodsOf(new Date(until)), floor, ', ending now (open day)');
  } finally {
    await service.stop();
  }
  console.log(`\n${label}: platform usage and people at risk at ${rows.toLocaleString('en')} interactions in one tenant (concurrency 4)`);
  console.table(table);
}
