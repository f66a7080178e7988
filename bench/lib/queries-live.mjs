// The live measures of the queries bench (BENCH_QUERIES=live): the lists, stats and search of bench/queries.mjs in
// the conditions a customer's database lives in, each beside the same request on freshly vacuumed tables in the
// same run. On a PostgreSQL cluster of the bench's own (bench/lib/pg-cluster.mjs), so autovacuum is set per scenario:
//   ingest      BENCH_LIVE_ROWS interactions through the batch API (4 requests of 500 at once, the seed's data
//               model: bench/lib/queries-live-data.mjs), autovacuum off, measured at once (no VACUUM), then again
//               after VACUUM ANALYZE. The service stamps rows with its own clock, so its clock is moved along the
//               seed's 180 days during this ingest (bench/lib/live-clock.mjs);
//   hold        on those rows, a REPEATABLE READ transaction that has read `interactions` held open for
//               BENCH_LIVE_HOLD_SECONDS while 1,000 single creates/s arrive through the API, measured during the
//               hold's last minute (its last tenth when shorter), then after its release and VACUUM ANALYZE;
//   autovacuum  the same with autovacuum on (its defaults).
// Each request is timed for BENCH_LIVE_SECONDS after the ingest; within the hold each gets an equal share of the
// window (and as long after the release). BENCH_LIVE_SCENARIOS keeps some scenarios; the ingest always runs, its
// rows are the others' too. BENCH_LIVE_EXPLAIN_MS keeps the plans of the slow statements (explainSettings).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { benchPolicies } from './ingest-service.mjs';
import { batchIngest, pacedCreates } from './load.mjs';
import { startCluster } from './pg-cluster.mjs';
import { liveInteraction, spreadClock } from './queries-live-data.mjs';
import {
  checkTotals, compareStates, liveRequests, measureRequests, tableStats, vacuumAnalyze, warmUp,
} from './queries-live-measure.mjs';
import { SPAN_DAYS } from './queries-seed.mjs';
import { shapes } from './queries-shapes.mjs';
import { figure } from './report.mjs';
import { ADMIN, apiKey, login, nowMs, sleep, startService } from './service.mjs';
import { freshPostgresStore, withClient } from './stores.mjs';

const ROWS = Number(process.env.BENCH_LIVE_ROWS ?? 2_000_000);
const SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 20);
const HOLD_SECONDS = Number(process.env.BENCH_LIVE_HOLD_SECONDS ?? 600);
const EXPLAIN_MS = process.env.BENCH_LIVE_EXPLAIN_MS;
const RATE = 1000;
const BATCH = 500;
const DAY_MS = 86_400_000;
const SCENARIOS = ['ingest', 'hold', 'autovacuum'];
const VACUUMED = 'after VACUUM ANALYZE';

const thousands = (n) => Math.round(n).toLocaleString('en');

function selectedScenarios() {
  const names = (process.env.BENCH_LIVE_SCENARIOS ?? SCENARIOS.join(',')).split(',').map((name) => name.trim());
  for (const name of names) if (!SCENARIOS.includes(name)) throw new Error(`BENCH_LIVE_SCENARIOS: ${name} is not one of ${SCENARIOS.join(', ')}`);
  return new Set(names);
}

function printTables(title, stats) {
  console.log(`\n  ${title}`);
  console.table(stats);
}

/** BENCH_LIVE_ROWS through the batch API on a service whose clock walks the 180 days; measured when `measure`. */
async function ingestScenario(store, measure) {
  const end = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const start = end - SPAN_DAYS * DAY_MS;
  const definitions = shapes({ start: new Date(start) });
  const clock = spreadClock();
  // The service starts in the past: its clock never goes back (ids are time-ordered).
  clock.at(start);
  const service = await startService({ ...store.env, ...clock.env }, { nodeArgs: clock.nodeArgs });
  try {
    const admin = await login(service.base, ADMIN);
    await benchPolicies(service.base, admin);
    const key = await apiKey(service.base, admin);
    const tenantId = await withClient(store.url, async (client) => (await client.query('select id from tenants order by created_at limit 1')).rows[0].id);
    console.log(`  sending ${thousands(ROWS)} interactions through POST /interactions/batch (${BATCH} per request, 4 at once)`);
    const tenth = Math.max(BATCH, Math.ceil(ROWS / 10 / BATCH) * BATCH);
    const startedAt = performance.now();
    const item = (n) => {
      if (n % BATCH === 0) clock.at(start + (n / ROWS) * (end - start));
      if (n % tenth === 0 && n > 0) console.log(`    ${thousands(n)} sent, ${thousands(n / ((performance.now() - startedAt) / 1000))} rows/s`);
      return liveInteraction(n);
    };
    const sent = await batchIngest({ base: service.base, key, total: ROWS, size: BATCH, concurrency: 4, item });
    clock.real();
    await sleep(100);
    console.log(`  ${thousands(sent.stored)} stored in ${Math.round(sent.seconds)} s (${thousands(sent.stored / sent.seconds)} rows/s)`);
    const afterIngest = await tableStats(store.url, { inserted: ROWS });
    printTables('right after the ingest (autovacuum off, no VACUUM):', afterIngest);
    const table = [figure({ scenario: 'ingest through the batch API', name: 'rows/s', value: sent.stored / sent.seconds }),
      figure({ scenario: 'ingest through the batch API', name: 'rows stored', value: sent.stored, limit: ROWS, limitIs: 'rows sent', target: { op: '==', value: ROWS } })];
    if (measure) {
      const token = await login(service.base, ADMIN);
      const requests = liveRequests(definitions);
      await warmUp(service.base, token, requests);
      console.log(`  measuring at once: ${requests.length} requests, ${SECONDS} s each`);
      const live = await measureRequests(service.base, token, requests, SECONDS);
      const liveChecks = await checkTotals(service.base, token, store, tenantId, definitions);
      table.push(...await spread(store.url, liveChecks.counts));
      const seconds = await vacuumAnalyze(store.url);
      printTables(`after VACUUM ANALYZE (${Math.round(seconds)} s):`, await tableStats(store.url));
      await warmUp(service.base, token, requests);
      console.log(`  measuring again: ${requests.length} requests, ${SECONDS} s each`);
      const vacuumed = await measureRequests(service.base, token, requests, SECONDS);
      const vacuumedChecks = await checkTotals(service.base, token, store, tenantId, definitions);
      table.push(...compareStates(requests, ['after API ingest, no VACUUM', live, liveChecks], [VACUUMED, vacuumed, vacuumedChecks]));
    } else {
      await vacuumAnalyze(store.url);
    }
    console.log(`\nlive (a): ${thousands(ROWS)} interactions sent through the batch API, autovacuum off, at once and ${VACUUMED} (concurrency 4 unless said)`);
    console.table(table);
    return { tenantId, definitions, next: ROWS };
  } finally {
    await service.stop();
    await clock.dispose();
  }
}

/** How the clock spread the rows: days from the first timestamp to the last, distinct timestamps, rows in the one-day shape. */
async function spread(url, counts) {
  const { rows: [row] } = await withClient(url, (client) => client.query(`select extract(epoch from max(timestamp) - min(timestamp)) / 86400 as days,
    count(distinct timestamp) as stamps from interactions`));
  const scenario = 'timestamps given by the moved clock';
  return [figure({ scenario, name: 'days from the first to the last', value: Number(row.days) }),
    figure({ scenario, name: 'distinct timestamps', value: Number(row.stamps) }),
    figure({ scenario, name: 'rows in the one-day shape (count(*))', value: counts['one day, not aligned'] })];
}

/** A transaction held open while RATE creates/s arrive; measured in the hold's last window, then after release and VACUUM. */
async function holdScenario(store, data, label) {
  const windowSeconds = Math.min(60, HOLD_SECONDS / 10);
  const service = await startService(store.env);
  const held = new pg.Client({ connectionString: store.url });
  try {
    const token = await login(service.base, ADMIN);
    const key = await apiKey(service.base, token);
    const requests = liveRequests(data.definitions);
    // Each request gets an equal share of the window, and as long after the release.
    const seconds = windowSeconds / requests.length;
    await warmUp(service.base, token, requests);
    await held.connect();
    await held.query('begin isolation level repeatable read');
    const seen = Number((await held.query('select count(*) from interactions')).rows[0].count);
    console.log(`  transaction held open (it read ${thousands(seen)} interactions); ${RATE} creates/s for ${HOLD_SECONDS} s, measures in the last ${windowSeconds} s`);
    const offset = data.next;
    data.next += RATE * HOLD_SECONDS;
    let windowStart;
    let windowEnd;
    const [creates, live] = await Promise.all([
      pacedCreates({ base: service.base, key, rate: RATE, count: RATE * HOLD_SECONDS, offset, item: liveInteraction }),
      (async () => {
        await sleep((HOLD_SECONDS - windowSeconds) * 1000);
        windowStart = nowMs();
        const measured = await measureRequests(service.base, token, requests, seconds);
        windowEnd = nowMs();
        return measured;
      })(),
    ]);
    const achieved = creates.created.length / ((creates.lastAnswerAt - creates.firstSentAt) / 1000);
    const inWindow = creates.created.filter(({ at }) => at >= windowStart && at <= windowEnd).length / ((windowEnd - windowStart) / 1000);
    if (creates.errors) console.log(`  failed creates: ${JSON.stringify(creates.failures)}`);
    console.log(`  creates: ${thousands(creates.created.length)} answered 201 (${thousands(achieved)}/s, ${thousands(inWindow)}/s while measuring), `
      + `${creates.skipped} skipped (256 waiting already), ${creates.errors} failed`);
    printTables(`at the end of the hold (${label}):`, await tableStats(store.url, { inserted: offset + creates.created.length }));
    const liveChecks = await checkTotals(service.base, token, store, data.tenantId, data.definitions);
    await held.query('commit');
    await held.end();
    const vacuumSeconds = await vacuumAnalyze(store.url);
    printTables(`after the release and VACUUM ANALYZE (${Math.round(vacuumSeconds)} s):`, await tableStats(store.url));
    await warmUp(service.base, token, requests);
    const vacuumed = await measureRequests(service.base, token, requests, seconds);
    const vacuumedChecks = await checkTotals(service.base, token, store, data.tenantId, data.definitions);
    const scenario = `${RATE} creates/s during the hold`;
    const table = [
      figure({ scenario, name: 'creates/s achieved, whole hold', value: achieved, limit: RATE, limitIs: 'rate sent', target: { op: '>=', times: 0.95 } }),
      figure({ scenario, name: 'creates/s while measuring', value: inWindow, limit: RATE, limitIs: 'rate sent', target: { op: '>=', times: 0.95 } }),
      figure({ scenario, name: 'creates failed or skipped', value: creates.errors + creates.skipped, target: { op: '==', value: 0 } }),
      ...compareStates(requests, ['in the hold', live, liveChecks], [`${VACUUMED}, no load`, vacuumed, vacuumedChecks]),
    ];
    console.log(`\nlive (${label}): a transaction held ${HOLD_SECONDS} s under ${RATE} creates/s, measured in its last ${windowSeconds} s `
      + `and ${VACUUMED}; totals checked at the end of the hold and after (concurrency 4 unless said)`);
    console.table(table);
  } finally {
    await held.end().catch(() => {});
    await service.stop();
  }
}

/**
 * BENCH_LIVE_EXPLAIN_MS: the server logs the plan, with its timings and buffers, of every statement slower than that
 * (auto_explain), and the log is kept in the OS temp dir. Timing every plan node slows every statement: a profile, not a figure.
 */
function explainSettings() {
  if (EXPLAIN_MS === undefined) return {};
  const keepLogAs = join(tmpdir(), `ugs-bench-live-explain-${Date.now()}.log`);
  console.log(`  slow plans (over ${EXPLAIN_MS} ms) go to ${keepLogAs}`);
  return {
    keepLogAs,
    settings: {
      shared_preload_libraries: 'auto_explain', 'auto_explain.log_min_duration': `${EXPLAIN_MS}ms`,
      'auto_explain.log_analyze': 'on', 'auto_explain.log_buffers': 'on', 'auto_explain.log_nested_statements': 'on',
    },
  };
}

export async function runLive() {
  const selected = selectedScenarios();
  const cluster = await startCluster(explainSettings());
  try {
    console.log(`\nlive: PostgreSQL ${cluster.version}, a cluster of the bench's own (${cluster.url})`);
    await cluster.setAutovacuum(false);
    const store = await freshPostgresStore(cluster.url);
    try {
      const data = await ingestScenario(store, selected.has('ingest'));
      for (const [name, on, label] of [['hold', false, 'b, autovacuum off'], ['autovacuum', true, 'c, autovacuum on']]) {
        if (!selected.has(name)) continue;
        await cluster.setAutovacuum(on);
        console.log(`\nlive (${label}): holding a transaction`);
        await holdScenario(store, data, label);
      }
    } finally {
      await store.dispose();
    }
  } finally {
    await cluster.stop();
  }
}
