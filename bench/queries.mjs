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
//   - AI platform usage and people at risk (bench/lib/queries-platforms.mjs) over the last day, 7 days, 30 days and
//     the whole range, p95 beside a 404's, each answer checked against the lists' totals;
//   - on PostgreSQL, ingest with the counts maintained (and compacted) against ingest with their triggers off;
//   - `live` (bench/lib/queries-live.mjs): the lists, stats and search after an ingest through the API without
//     VACUUM, and during a transaction held open under 1,000 creates/s (autovacuum off, then on), each beside the
//     same after VACUUM ANALYZE, on a PostgreSQL cluster of the bench's own (no seed, no BENCH_DATABASE_URL needed).
//     Not in the default set: it ingests 2,000,000 rows through the API and holds two transactions 10 minutes each,
//     about 45 minutes more on the 2-core machine; run it with BENCH_QUERIES=live (alone or beside the others).
// BENCH_QUERIES=lists,search,stats,lookup,platforms,ingest (the default) keeps some of these measures, or adds live.
import { pathToFileURL } from 'node:url';
import { ingestWithAndWithoutCounts } from './lib/queries-ingest.mjs';
import { runLive } from './lib/queries-live.mjs';
import { lookups } from './lib/queries-lookup.mjs';
import { platformsAndPeople } from './lib/queries-platforms.mjs';
import { get, latency, walk } from './lib/queries-measure.mjs';
import { onQueriesSeeds, pooledHash } from './lib/queries-seed.mjs';
import { asUuid, md5, plainCounts, shapes, statsMatch } from './lib/queries-shapes.mjs';
import { figure } from './lib/report.mjs';
import { ADMIN, login, startService } from './lib/service.mjs';
import { ADMIN_URL } from './lib/stores.mjs';

const ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 10_000_000);
const ROWS_EMBEDDED = Number(process.env.BENCH_QUERY_ROWS_EMBEDDED ?? 1_000_000);
const DEEP_PAGES = Number(process.env.BENCH_DEEP_PAGES ?? 100);
const TARGET = { page: 50, search: 5, stats: 50 };
const MEASURES = ['lists', 'search', 'stats', 'lookup', 'platforms', 'ingest', 'live'];
const DEFAULT = MEASURES.filter((name) => name !== 'live');
const ONLY = new Set((process.env.BENCH_QUERIES ?? DEFAULT.join(',')).split(',').map((name) => name.trim()));
for (const name of ONLY) if (!MEASURES.includes(name)) throw new Error(`BENCH_QUERIES: ${name} is not one of ${MEASURES.join(', ')}`);

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
  if (ONLY.has('platforms')) await platformsAndPeople(label, seed, rows);
}

export async function runQueries() {
  if (DEFAULT.some((name) => ONLY.has(name))) {
    await onQueriesSeeds({ rows: ROWS, rowsEmbedded: ROWS_EMBEDDED, adminUrl: ADMIN_URL, measure, afterPostgres: ONLY.has('ingest') ? ingestWithAndWithoutCounts : undefined });
  }
  if (ONLY.has('live')) {
    if (process.env.BENCH_STORES === 'pglite') console.log('\nlive: skipped (PostgreSQL only, and BENCH_STORES=pglite)');
    else await runLive();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runQueries();
