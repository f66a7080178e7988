// AI platform usage and people at risk on the queries seed (BENCH_QUERIES=platforms): GET /api/v1/platforms/usage
// and GET /api/v1/people/risk over the seed's last day, 7 days, 30 days and whole range, p95 at concurrency 4
// beside the p95 of a 404 of the same run. Each answer is checked against the lists: a platform's usage equals the
// list's total for that platform and period, and the first person's `high_risk` the list's total of their
// interactions of risk_score >= 0.7. A period people at risk refuses (too many interactions to rank) is reported
// as refused, with the number the service gave.
// Then the open day, as a customer's periods end: the day's interactions topped up through the batch API to a
// day's share of the seed (the seed's distributions; the service stamps them with its clock, so they are today's
// and not rolled up: counted from the rows), and the same periods ending after that ingest, measured at once.
import { batchIngest } from './load.mjs';
import { get, latency } from './queries-measure.mjs';
import { liveInteraction } from './queries-live-data.mjs';
import { SPAN_DAYS } from './queries-seed.mjs';
import { asUuid, md5 } from './queries-shapes.mjs';
import { figure } from './report.mjs';
import { ADMIN, apiKey, login, startService } from './service.mjs';
import { withClient } from './stores.mjs';

const DAY_MS = 86_400_000;
const TARGET = 100;

const periodsOf = (end) => [
  ['last day', new Date(end.getTime() - DAY_MS)],
  ['last 7 days', new Date(end.getTime() - 7 * DAY_MS)],
  ['last 30 days', new Date(end.getTime() - 30 * DAY_MS)],
  ['whole range', undefined],
].map(([name, start]) => ({ name, query: start ? `start_date=${start.toISOString()}&end_date=${end.toISOString()}` : '' }));

/** Today's interactions of the tenant (PostgreSQL; the embedded store is held by the service). */
async function todayRows(seed) {
  return withClient(seed.url, async (client) => Number((await client.query(
    `select count(*) as n from interactions where tenant_id = $1 and timestamp >= $2`, [seed.tenantId, seed.end])).rows[0].n));
}

/** Tops today's interactions up to a day's share of the seed's rows through the batch API; today's rows after it. */
async function fillOpenDay(base, token, seed, rows) {
  const share = Math.round(rows / SPAN_DAYS);
  const before = await todayRows(seed);
  if (before < share) {
    const key = await apiKey(base, token);
    await batchIngest({ base, key, total: share - before, concurrency: 4, offset: rows + before, item: liveInteraction });
  }
  return { before, after: await todayRows(seed) };
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
    if (seed.url) {
      const today = await fillOpenDay(service.base, token, seed, rows);
      console.log(`  the open day holds ${today.after.toLocaleString('en')} interactions (${(today.after - today.before).toLocaleString('en')} `
        + 'sent through the batch API by this run); measuring periods that end now, at once');
      await measurePeriods(table, service.base, token, periodsOf(new Date()), floor, ', ending now (open day)');
    }
  } finally {
    await service.stop();
  }
  console.log(`\n${label}: platform usage and people at risk at ${rows.toLocaleString('en')} interactions in one tenant (concurrency 4)`);
  console.table(table);
}
