// One state of the live measures (bench/lib/queries-live.mjs): the requests of bench/queries.mjs timed for a
// duration each, the lists' totals and the stats checked against count(*), and the tables' live and dead rows.
import { get, latency } from './queries-measure.mjs';
import { pooledHash } from './queries-seed.mjs';
import { asUuid, md5, plainCounts, statsMatch } from './queries-shapes.mjs';
import { figure } from './report.mjs';
import { sleep } from './service.mjs';
import { withClient } from './stores.mjs';

const TARGET = { list: 50, stats: 100, search: { 1: 5, 4: 10 } };

/** The requests measured in each state: `{ name, paths, concurrency, q, target, expect }`. */
export function liveRequests(definitions) {
  const search = Array.from({ length: 50 }, (_, k) => `/api/v1/interactions/search?content_hash=${pooledHash(md5, k * 1999 % 100_000)}`);
  const day = `start_date=${definitions.day.start.toISOString()}&end_date=${definitions.day.end.toISOString()}`;
  return [
    ...definitions.list.map(([name, query]) => ({
      name: `${name}, first page`, paths: `/api/v1/interactions?${query}${query ? '&' : ''}limit=50`, concurrency: 4, q: 'p95', target: TARGET.list,
    })),
    { name: 'stats, whole range', paths: '/api/v1/stats', concurrency: 4, q: 'p95', target: TARGET.stats },
    { name: 'stats, one day', paths: `/api/v1/stats?${day}`, concurrency: 4, q: 'p95', target: TARGET.stats },
    ...[1, 4].map((concurrency) => ({
      name: `search by content hash, concurrency ${concurrency}`, paths: search, concurrency, q: 'p99', target: TARGET.search[concurrency],
    })),
    // No target: HTTP and authentication alone, to tell the machine's noise from the table's state.
    { name: 'GET /interactions/<unknown id> (404)', paths: `/api/v1/interactions/${asUuid(md5('unknown'))}`, concurrency: 4, q: 'p95', expect: 404 },
  ];
}

/** Every request kind a few times, unmeasured (JIT, connections). */
export async function warmUp(base, token, requests) {
  await latency(base, token, requests.map((r) => (Array.isArray(r.paths) ? r.paths[0] : r.paths)), { requests: 8 * requests.length, expect: undefined });
}

/** Each request for `seconds`, one after the other: `[{ value, count, errors }]` in the order of `requests`. */
export async function measureRequests(base, token, requests, seconds) {
  const measured = [];
  for (const { paths, concurrency, q, expect = 200 } of requests) {
    const result = await latency(base, token, paths, { seconds, concurrency, expect });
    measured.push({ value: result[q], count: result.count, errors: result.errors });
  }
  return measured;
}

/**
 * The lists' totals minus count(*) of the same filters, whether the stats' numbers are count(*)'s (1 or 0), and
 * count(*) of each shape. Run after the measures: count(*) reads every row (and sets its hint bits).
 */
export async function checkTotals(base, token, store, tenantId, definitions) {
  const plain = await plainCounts(store.env, tenantId, definitions);
  const list = {};
  for (const [name, query] of definitions.list) {
    list[name] = JSON.parse((await get(base, token, `/api/v1/interactions?${query}${query ? '&' : ''}limit=1`)).body).total - plain.list[name];
  }
  const stats = {};
  for (const [name, query, expected] of [['stats, whole range', '', plain.stats.all],
    ['stats, one day', `?start_date=${definitions.day.start.toISOString()}&end_date=${definitions.day.end.toISOString()}`, plain.stats.day]]) {
    stats[name] = statsMatch(JSON.parse((await get(base, token, `/api/v1/stats${query}`)).body), expected) ? 1 : 0;
  }
  return { list, stats, counts: plain.list };
}

/** Rows comparing two states: each live figure with the vacuumed one as its limit, then the checks of both. */
export function compareStates(requests, [liveState, live, liveChecks], [vacuumedState, vacuumed, vacuumedChecks]) {
  const rows = requests.map((request, i) => figure({
    scenario: request.name, name: `${request.q} ms ${liveState} (n ${live[i].count} / ${vacuumed[i].count})`,
    value: live[i].value, limit: vacuumed[i].value, limitIs: `${request.q} ${vacuumedState}`,
    target: request.target && { op: '<=', value: request.target },
  }));
  const errors = [...live, ...vacuumed].reduce((sum, m) => sum + m.errors, 0);
  if (errors) rows.push(figure({ scenario: 'every request', name: 'errors (unexpected status)', value: errors, target: { op: '==', value: 0 } }));
  for (const [state, checks] of [[liveState, liveChecks], [vacuumedState, vacuumedChecks]]) {
    const wrongTotals = Object.entries(checks.list).filter(([, difference]) => difference !== 0);
    const wrongStats = Object.entries(checks.stats).filter(([, same]) => !same);
    rows.push(figure({
      scenario: wrongTotals.length ? `wrong: ${wrongTotals.map(([name, d]) => `${name} (${d > 0 ? '+' : ''}${d})`).join(', ')}` : 'the 8 list totals',
      name: `totals not = count(*), ${state}`, value: wrongTotals.length, target: { op: '==', value: 0 },
    }));
    rows.push(figure({
      scenario: wrongStats.length ? `wrong: ${wrongStats.map(([name]) => name).join(', ')}` : 'stats, whole range and one day',
      name: `numbers not = count(*), ${state}`, value: wrongStats.length, target: { op: '==', value: 0 },
    }));
  }
  return rows;
}

/**
 * Live and dead rows and sizes of `interactions` and of the tables whose names hold `count` (pg_stat_user_tables),
 * once the backends have reported at least `inserted` interactions (they report up to ~10 s late; 15 s at most).
 */
export async function tableStats(url, { inserted = 0 } = {}) {
  return withClient(url, async (client) => {
    for (let i = 0; i < 150; i += 1) {
      const { rows } = await client.query(`select coalesce(sum(n_tup_ins), 0) as n from pg_stat_user_tables where relname = 'interactions'`);
      if (Number(rows[0].n) >= inserted) break;
      await sleep(100);
    }
    return (await client.query(`select relname as table, n_live_tup as live, n_dead_tup as dead,
        pg_size_pretty(pg_relation_size(relid)) as heap, pg_size_pretty(pg_total_relation_size(relid)) as "heap + indexes",
        autovacuum_count as autovacuums
      from pg_stat_user_tables where relname = 'interactions' or relname like '%count%' order by relname`)).rows
      .map((row) => ({ ...row, live: Number(row.live), dead: Number(row.dead), autovacuums: Number(row.autovacuums) }));
  });
}

/** VACUUM ANALYZE of the whole database; returns its seconds. */
export async function vacuumAnalyze(url) {
  const started = performance.now();
  await withClient(url, (client) => client.query('vacuum analyze'));
  return (performance.now() - started) / 1000;
}
