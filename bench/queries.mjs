// Lists, search and stats at size: part of `npm run bench` (BENCH_ONLY=queries), or alone with
// `node bench/queries.mjs` after `npm run build`. Seeds one tenant through SQL (bench/lib/queries-seed.mjs:
// BENCH_QUERY_ROWS on PostgreSQL, default 10,000,000, in a database kept between runs; BENCH_QUERY_ROWS_EMBEDDED
// on the embedded store, default 1,000,000), then measures through the API, at concurrency 4:
//   - the 8 list shapes of the issue, first page and a page deep in the list reached by cursor (BENCH_DEEP_PAGES
//     pages of 500 followed first), each p95 beside the p95 of a trivial authenticated request (the floor: HTTP
//     and authentication), and each total checked against count(*) of the same filters;
//   - search by content hash (p99), stats over the whole range and over one day (p95, numbers checked);
//   - finding a detected value again (bench/lib/queries-lookup.mjs): POST /signals/lookup and the first page of
//     GET /interactions?fingerprint= for values sent through the API and seen 0, 1, 100 and 10,000 times, at once
//     after that ingest (no VACUUM) and after a VACUUM, p50/p95/p99 each beside the 404's;
//   - on PostgreSQL, ingest with the counts maintained (and compacted) against ingest with their triggers off.
// BENCH_QUERIES=lists,search,stats,lookup,ingest (the default: all) keeps some of these measures.
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { ingestWithAndWithoutCounts } from './lib/queries-ingest.mjs';
import { lookups } from './lib/queries-lookup.mjs';
import { get, latency, walk } from './lib/queries-measure.mjs';
import { onQueriesSeeds, pooledHash } from './lib/queries-seed.mjs';
import { figure } from './lib/report.mjs';
import { ADMIN, login, startService } from './lib/service.mjs';
import { ADMIN_URL } from './lib/stores.mjs';

const ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 10_000_000);
const ROWS_EMBEDDED = Number(process.env.BENCH_QUERY_ROWS_EMBEDDED ?? 1_000_000);
const DEEP_PAGES = Number(process.env.BENCH_DEEP_PAGES ?? 100);
const TARGET = { page: 50, search: 5, stats: 50 };
const DAY_MS = 86_400_000;
const MEASURES = ['lists', 'search', 'stats', 'lookup', 'ingest'];
const ONLY = new Set((process.env.BENCH_QUERIES ?? MEASURES.join(',')).split(',').map((name) => name.trim()));
for (const name of ONLY) if (!MEASURES.includes(name)) throw new Error(`BENCH_QUERIES: ${name} is not one of ${MEASURES.join(', ')}`);

const md5 = (text) => createHash('md5').update(text).digest('hex');
const asUuid = (hex) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The shapes: the query string and the same filters in SQL, for count(*). */
function shapes(seed) {
  const dayStart = new Date(seed.start.getTime() + 90 * DAY_MS + ((10 * 60 + 17) * 60 + 23) * 1000 + 456);
  const dayEnd = new Date(dayStart.getTime() + DAY_MS - 1);
  const user = asUuid(md5('user42'));
  return {
    day: { start: dayStart, end: dayEnd },
    list: [
      ['no filter', '', 'true'],
      ['platform_id', 'platform_id=claude', `platform_id = 'claude'`],
      ['risk_score_min=0.8', 'risk_score_min=0.8', 'risk_score >= 0.8'],
      ['classification_type=CREDIT_CARD', 'classification_type=CREDIT_CARD',
        `exists (select 1 from jsonb_array_elements(classifications) c where c->>'type' = 'CREDIT_CARD')`],
      ['one day, not aligned', `start_date=${dayStart.toISOString()}&end_date=${dayEnd.toISOString()}`,
        `timestamp >= '${dayStart.toISOString()}' and timestamp <= '${dayEnd.toISOString()}'`],
      ['user_id', `user_id=${user}`, `user_id = '${user}'`],
      ['source + direction', 'source=proxy&direction=inbound', `source = 'proxy' and direction = 'inbound'`],
      ['sort=-risk_score + platform_id', 'sort=-risk_score&platform_id=claude', `platform_id = 'claude'`],
    ],
  };
}

/** count(*) of each shape and the stats' plain numbers, with the store opened directly (before the service starts). */
async function plainCounts(env, tenantId, { list, day }) {
  const { sql } = await import('kysely');
  const { openStore } = await import('../dist/platform/store/store.js');
  const store = await openStore(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL, poolSize: 2 } : { dataDir: env.DATA_DIR });
  try {
    const timings = {};
    const count = async (where, name) => {
      const started = performance.now();
      const n = Number((await sql.raw(`select count(*) as n from interactions
        where tenant_id = '${tenantId}' and ${where}`).execute(store.db)).rows[0].n);
      if (name) timings[name] = performance.now() - started;
      return n;
    };
    const bySource = async (where) => Object.fromEntries((await sql.raw(`select source, count(*) as n from interactions
      where tenant_id = '${tenantId}' and ${where} group by source`).execute(store.db)).rows.map((r) => [r.source, Number(r.n)]));
    const openAlerts = async (where) => Object.fromEntries((await sql.raw(`select severity, count(*) as n from alerts
      where tenant_id = '${tenantId}' and status = 'open' and ${where.replaceAll('timestamp', 'created_at')} group by severity`)
      .execute(store.db)).rows.map((r) => [r.severity, Number(r.n)]));
    const dayWhere = `timestamp >= '${day.start.toISOString()}' and timestamp <= '${day.end.toISOString()}'`;
    const statsOf = async (where) => ({ total: await count(where), bySource: await bySource(where), openAlerts: await openAlerts(where) });
    return {
      // One after the other, so each time is its own: what a total cost when it was a count(*).
      list: await list.reduce(async (done, [name, , where]) => ({ ...(await done), [name]: await count(where, name) }), {}),
      timings,
      stats: { all: await statsOf('true'), day: await statsOf(dayWhere) },
    };
  } finally {
    await store.close();
  }
}

function statsMatch(body, expected) {
  const { total, by_source: bySource } = body.interactions;
  const sources = ['browser_extension', 'proxy', 'endpoint_agent', 'api'];
  const severities = ['low', 'medium', 'high', 'critical'];
  return total === expected.total && sources.every((s) => bySource[s] === (expected.bySource[s] ?? 0))
    && severities.every((s) => body.alerts.open_by_severity[s] === (expected.openAlerts[s] ?? 0));
}

async function listsSearchStats(label, seed, rows) {
  const add = (table, spec) => table.push(figure(spec));
  const table = [];
  const definitions = shapes(seed);
  let plain;
  if (ONLY.has('lists') || ONLY.has('stats')) {
    console.log(`  counting the shapes with count(*) for the check`);
    plain = await plainCounts(seed.env, seed.tenantId, definitions);
  }
  const service = await startService(seed.env);
  try {
    const token = await login(service.base, ADMIN);
    // Warm-up (JIT, caches): every request kind once per connection and more, unmeasured.
    await latency(service.base, token, ['/api/v1/interactions/00000000-0000-4000-8000-000000000000', '/api/v1/stats',
      '/api/v1/interactions/search?content_hash=' + '0'.repeat(64),
      ...definitions.list.map(([, query]) => `/api/v1/interactions?${query}`)], { requests: 200, expect: undefined });
    const floor = await latency(service.base, token, `/api/v1/interactions/${asUuid(md5('unknown'))}`, { expect: 404 });
    const floorIs = 'p95 of GET /interactions/<unknown id> (404)';
    for (const [name, query] of ONLY.has('lists') ? definitions.list : []) {
      const path = `/api/v1/interactions?${query}`;
      const first = await get(service.base, token, `${path}${query ? '&' : ''}limit=50`);
      const total = JSON.parse(first.body).total;
      add(table, { scenario: name, name: 'total - count(*)', value: total - plain.list[name], target: { op: '==', value: 0 } });
      add(table, { scenario: name, name: 'count(*) alone, ms (the total before aggregates)', value: plain.timings[name] });
      const firstPage = await latency(service.base, token, `${path}${query ? '&' : ''}limit=50`);
      add(table, { scenario: name, name: 'first page p95 ms', value: firstPage.p95, limit: floor.p95, limitIs: floorIs, target: { op: '<=', value: TARGET.page } });
      const deep = await walk(service.base, token, path, { pages: DEEP_PAGES });
      if (!deep.supported || !deep.cursor) {
        add(table, { scenario: name, name: deep.supported ? `deep page: list ends at ${deep.depth}` : 'deep page: n/a (no cursor)', value: NaN });
        continue;
      }
      const deepPage = await latency(service.base, token, `${path}${query ? '&' : ''}limit=50&cursor=${encodeURIComponent(deep.cursor)}`);
      add(table, { scenario: name, name: `page ${deep.depth.toLocaleString('en')} rows deep p95 ms`, value: deepPage.p95, limit: floor.p95, limitIs: floorIs, target: { op: '<=', value: TARGET.page } });
      if (firstPage.errors + deepPage.errors) add(table, { scenario: name, name: 'errors', value: firstPage.errors + deepPage.errors, target: { op: '==', value: 0 } });
    }
    if (ONLY.has('search')) {
      const hashes = Array.from({ length: 50 }, (_, k) => pooledHash(md5, k * 1999 % 100_000));
      const search = await latency(service.base, token, hashes.map((hash) => `/api/v1/interactions/search?content_hash=${hash}`));
      add(table, { scenario: 'search by content hash', name: 'p99 ms', value: search.p99, limit: floor.p99, limitIs: 'p99 of the same 404', target: { op: '<=', value: TARGET.search } });
      // One request at a time: the search's own time, without queueing for the two cores.
      const searchAlone = await latency(service.base, token, hashes.map((hash) => `/api/v1/interactions/search?content_hash=${hash}`), { concurrency: 1 });
      const floorAlone = await latency(service.base, token, `/api/v1/interactions/${asUuid(md5('unknown'))}`, { expect: 404, concurrency: 1 });
      add(table, { scenario: 'search by content hash, concurrency 1', name: 'p99 ms', value: searchAlone.p99, limit: floorAlone.p99, limitIs: 'p99 of the 404, concurrency 1', target: { op: '<=', value: TARGET.search } });
    }
    for (const [name, query, expected] of !ONLY.has('stats') ? [] : [['stats, whole range', '', plain.stats.all],
      ['stats, one day', `?start_date=${definitions.day.start.toISOString()}&end_date=${definitions.day.end.toISOString()}`, plain.stats.day]]) {
      const answer = await get(service.base, token, `/api/v1/stats${query}`);
      add(table, { scenario: name, name: 'numbers = count(*)', value: statsMatch(JSON.parse(answer.body), expected) ? 1 : 0, target: { op: '==', value: 1 } });
      const stats = await latency(service.base, token, `/api/v1/stats${query}`, { requests: 100 });
      add(table, { scenario: name, name: 'p95 ms', value: stats.p95, limit: floor.p95, limitIs: floorIs, target: { op: '<=', value: TARGET.stats } });
    }
  } finally {
    await service.stop();
  }
  console.log(`\n${label}: lists, search and stats at ${rows.toLocaleString('en')} interactions in one tenant (concurrency 4)`);
  console.table(table);
}

async function measure(label, seed, rows) {
  if (['lists', 'search', 'stats'].some((name) => ONLY.has(name))) await listsSearchStats(label, seed, rows);
  if (ONLY.has('lookup')) await lookups(label, seed, rows);
}

export async function runQueries() {
  await onQueriesSeeds({ rows: ROWS, rowsEmbedded: ROWS_EMBEDDED, adminUrl: ADMIN_URL, measure, afterPostgres: ONLY.has('ingest') ? ingestWithAndWithoutCounts : undefined });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runQueries();
