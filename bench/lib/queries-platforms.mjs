// AI platform usage and people at risk on the queries seed (BENCH_QUERIES=platforms): GET /api/v1/platforms/usage
// and GET /api/v1/people/risk over the seed's last day, 7 days, 30 days and whole range, p95 at concurrency 4
// beside the p95 of a 404 of the same run. Each answer is checked against the lists: a platform's usage equals the
// list's total for that platform and period, and the first person's `high_risk` the list's total of their
// interactions of risk_score >= 0.7. A period people at risk refuses (too many interactions to rank) is reported
// as refused, with the number the service gave. Before measuring, everything closed is rolled up, as the
// service's worker keeps it (every minute).
// Then the open day, as a customer's periods end (PostgreSQL): today's interactions topped up through the batch API
// to the seed's daily rate for the part of the day gone by, spread from midnight to now (the service stamps rows
// with its own clock; the filling service's clock walks through the day, bench/lib/live-clock.mjs), the roll-up
// job run as its worker would, and the same periods ending now measured at once: the closed hours and 5-minute
// slots come from their roll-ups, the last 10 to 15 minutes (and the minutes at a period's start) from the rows.
import { batchIngest } from './load.mjs';
import { get, latency } from './queries-measure.mjs';
import { liveInteraction, spreadClock } from './queries-live-data.mjs';
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

/** Today's interactions of the tenant and the last one's time (PostgreSQL; the embedded store is held by the service). */
async function today(seed) {
  return withClient(seed.url, async (client) => {
    const { rows: [row] } = await client.query(
      `select count(*) as n, max(timestamp) as latest from interactions where tenant_id = $1 and timestamp >= $2`,
      [seed.tenantId, new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS)]);
    return { rows: Number(row.n), latest: row.latest?.getTime() ?? null };
  });
}

/**
 * Tops today's interactions up to the seed's daily rate for the part of the day gone by, through the batch API of a
 * service whose clock walks from the last of them (or midnight) to now as the batches go.
 */
async function fillOpenDay(seed, rows) {
  const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const share = Math.round((rows / SPAN_DAYS) * ((Date.now() - midnight) / DAY_MS));
  const before = await today(seed);
  const missing = share - before.rows;
  if (missing > 0) {
    const clock = spreadClock();
    const from = Math.max(midnight, (before.latest ?? midnight) + 1);
    clock.at(from);
    const service = await startService({ ...seed.env, ...clock.env, SERVE_WORKERS: 'false' }, { nodeArgs: clock.nodeArgs });
    try {
      const key = await apiKey(service.base, await login(service.base, ADMIN));
      const item = (n) => {
        const sent = n - rows - before.rows;
        if (sent % 500 === 0) clock.at(from + (sent / missing) * (Date.now() - from));
        return liveInteraction(n);
      };
      await batchIngest({ base: service.base, key, total: missing, concurrency: 4, offset: rows + before.rows, item });
    } finally {
      clock.real();
      await service.stop();
      clock.dispose();
    }
    // Rows written into the past of the service's clock (which the service never does) may land in slots already
    // rolled up (by the seed, or by an earlier run's worker): the day is marked changed, as the service's triggers do
    // for a delete, and the roll-up below builds it again.
    await withClient(seed.url, (client) => client.query(`insert into usage_rollup_dirty_days (tenant_id, day, marks)
      values ($1, $2::date, 1) on conflict (tenant_id, day) do update set marks = usage_rollup_dirty_days.marks + 1`,
    [seed.tenantId, new Date(midnight).toISOString().slice(0, 10)]));
  }
  return { before: before.rows, after: (await today(seed)).rows };
}

/**
 * Rolls up every closed day, hour and 5-minute slot, as the service's worker does every minute; on PostgreSQL, until
 * the last closed slot is there. `rowsFrom`: where the roll-ups end, the rows taking the rest.
 */
async function rollUp(seed) {
  const { openOwnerStore } = await import('./owner-store.mjs');
  const { lastClosedSlot, rollUpUsage } = await import('../../dist/modules/rollups/usage-rollups.job.js');
  const store = await openOwnerStore(seed.env.DATABASE_URL ? { databaseUrl: seed.env.DATABASE_URL, poolSize: 2 } : { dataDir: seed.env.DATA_DIR });
  try {
    for (let attempt = 0; ; attempt++) {
      const now = new Date();
      const run = await rollUpUsage(store.db, now, [seed.tenantId]);
      if (!seed.url) return run;
      // Skipped while a service's worker holds the tenant's lease: then it is that worker's run, waited for.
      const rowsFrom = await withClient(seed.url, async (client) => Number((await client.query(
        'select max((slot + 1) * minutes * 60000::bigint) as until from usage_rollup_slots where tenant_id = $1',
        [seed.tenantId])).rows[0].until));
      if (rowsFrom >= (lastClosedSlot(now) + 1) * 300_000 || attempt === 60) return { ...run, rowsFrom: new Date(rowsFrom) };
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } finally {
    await store.close();
  }
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
  // The build's migrations applied by a service without workers; the open day filled before anything rolls up
  // its hours (the filling service's clock walks through hours the job would otherwise have closed already).
  await (await startService({ ...seed.env, SERVE_WORKERS: 'false' })).stop();
  const filled = seed.url ? await fillOpenDay(seed, rows) : undefined;
  const startedAt = performance.now();
  const run = await rollUp(seed);
  console.log(`  rolled up ${run.days} days, ${run.slots} hours and 5-minute slots, ${run.blocks} blocks in ${Math.round((performance.now() - startedAt) / 1000)} s`);
  const service = await startService(seed.env);
  try {
    const token = await login(service.base, ADMIN);
    const unknown = `/api/v1/interactions/${asUuid(md5('unknown'))}`;
    await latency(service.base, token, unknown, { requests: 100, expect: 404 });
    const floor = await latency(service.base, token, unknown, { expect: 404 });
    await measurePeriods(table, service.base, token, periodsOf(seed.end), floor, '');
    if (filled) {
      const end = new Date();
      console.log(`  the open day holds ${filled.after.toLocaleString('en')} interactions (${(filled.after - filled.before).toLocaleString('en')} `
        + `sent through the batch API by this run, spread to now); rolled up to ${run.rowsFrom.toISOString().slice(11, 16)} UTC, `
        + `the rows after; measuring periods that end now, at once (${end.toISOString().slice(11, 16)} UTC)`);
      await measurePeriods(table, service.base, token, periodsOf(end), floor, ', ending now (open day)');
    }
  } finally {
    await service.stop();
  }
  console.log(`\n${label}: platform usage and people at risk at ${rows.toLocaleString('en')} interactions in one tenant (concurrency 4)`);
  console.table(table);
}
