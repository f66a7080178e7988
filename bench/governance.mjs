// Exports and the policy dry-run at size: part of `npm run bench` (BENCH_ONLY=governance), or alone with
// `node bench/governance.mjs` after `npm run build`. Seeds one tenant through SQL (the queries bench's seed,
// with validated flags on classifications: BENCH_EXPORT_ROWS on PostgreSQL, default 1,000,000, in a database
// kept between runs; BENCH_EXPORT_ROWS_EMBEDDED on the embedded store, default 200,000), then through the API:
//   - CSV and NDJSON exports of every row: rows/s and MiB/s, the service's RSS before and peak during (from
//     /proc), with its heap as `npm start` leaves it and capped (64 MiB; 128 embedded); lines checked against the rows;
//     limit: PostgreSQL's COPY of the same rows through psql (embedded: the store turning them to text);
//   - the policy dry-run over the whole range for three typical policies, p50/p95 of BENCH_DRY_RUNS runs,
//     matched checked against count(*); limit: EXPLAIN ANALYZE of a plain count(*) of the same newest rows.
import { pathToFileURL } from 'node:url';
import { countTimeMs, expectedMatches, explainDryRun, POLICIES } from './lib/governance-dry-run.mjs';
import { download, mib, psqlCopy, storeText } from './lib/governance-export.mjs';
import { seededEmbedded, seededPostgres } from './lib/queries-seed.mjs';
import { figure, percentile } from './lib/report.mjs';
import { ADMIN, api, login, startService } from './lib/service.mjs';
import { ADMIN_URL } from './lib/stores.mjs';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const ROWS_EMBEDDED = Number(process.env.BENCH_EXPORT_ROWS_EMBEDDED ?? 200_000);
const DRY_RUNS = Number(process.env.BENCH_DRY_RUNS ?? 5);
/** Which measures run: BENCH_GOVERNANCE=exports,dry-run (both by default). */
const RUN = new Set((process.env.BENCH_GOVERNANCE ?? 'exports,dry-run').split(','));
/** The service's POLICY_DRY_RUN_MAX_ROWS, left at its default. */
const DRY_RUN_MAX_ROWS = 1_000_000;
/**
 * The capped heap, MiB: 64 as the export test's; 128 on the embedded store, whose database alone keeps ~60 MiB
 * of heap in use at idle (with 64 the service runs out of heap in the export's first seconds).
 */
const CAPPED_HEAP_MIB = { postgres: 64, pglite: 128 };

const median = (values) => percentile(values, 0.5);

/** The limits, measured with the store opened directly before the service starts (the embedded store allows one opener). */
async function limits(seed, rows) {
  const { sql } = await import('kysely');
  const { openStore } = await import('../dist/platform/store/store.js');
  const { env, tenantId } = seed;
  const store = await openStore(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL, poolSize: 2 } : { dataDir: env.DATA_DIR });
  try {
    const copies = [];
    // The first read also warms the caches for every figure after it; each limit is the median of three.
    for (let i = 0; i < (RUN.has('exports') ? 3 : 0); i += 1) {
      copies.push(env.DATABASE_URL ? await psqlCopy(env.DATABASE_URL, tenantId) : await storeText(store.db, sql, tenantId));
    }
    const copy = copies.sort((a, b) => a.seconds - b.seconds)[1];
    if (copy && copy.lines !== undefined && copy.lines !== rows + 1) throw new Error(`COPY gave ${copy.lines} lines for ${rows} rows`);
    const counts = [];
    for (let i = 0; i < 3; i += 1) counts.push(await countTimeMs(store.db, sql, tenantId, DRY_RUN_MAX_ROWS));
    const policies = [];
    for (const policy of POLICIES) {
      policies.push({
        expected: await expectedMatches(store.db, sql, tenantId, policy, DRY_RUN_MAX_ROWS),
        explained: await explainDryRun(store.db, sql, tenantId, policy, DRY_RUN_MAX_ROWS),
      });
    }
    return { copy, copyIs: env.DATABASE_URL ? 'psql COPY (…) TO STDOUT (FORMAT csv)' : 'the store turning the rows to text',
      countMs: median(counts), policies };
  } finally {
    await store.close();
  }
}

async function exports(seed, rows, limit, heapMiB) {
  const service = await startService({ ...seed.env, ...(heapMiB ? { NODE_OPTIONS: `--max-old-space-size=${heapMiB}` } : {}) });
  const table = [];
  try {
    const token = await login(service.base, ADMIN);
    for (const format of ['csv', 'ndjson']) {
      const expected = format === 'csv' ? rows + 1 : rows;
      const run = await download(service.base, token, `/api/v1/interactions/export?format=${format}`, service.pid, expected);
      if (run.status !== 200) throw new Error(`export ${format}: HTTP ${run.status}`);
      const scenario = `${format}, heap ${heapMiB ? `capped at ${heapMiB} MiB` : 'as npm start'}`;
      const add = (spec) => table.push(figure({ scenario, ...spec }));
      add({ name: 'lines - expected (header + rows)', value: run.lines - expected, target: { op: '==', value: 0 } });
      add({ name: 'seconds', value: run.seconds, limit: limit.copy.seconds, limitIs: limit.copyIs });
      add({ name: 'rows/s', value: rows / run.seconds, limit: rows / limit.copy.seconds, limitIs: limit.copyIs });
      add({ name: 'MiB/s', value: mib(run.bytes) / run.seconds, limit: mib(limit.copy.bytes) / limit.copy.seconds, limitIs: limit.copyIs });
      add({ name: 'MiB streamed', value: mib(run.bytes), limit: mib(limit.copy.bytes), limitIs: limit.copyIs });
      add({ name: 'service RSS before, MiB', value: run.rssBefore });
      add({ name: 'service RSS peak in the first tenth, MiB', value: run.rssPeakFirstTenth });
      add({ name: 'service RSS peak, MiB', value: run.rssPeak });
      add({ name: 'RSS growth (peak - before), MiB', value: run.rssPeak - run.rssBefore, limit: mib(run.bytes), limitIs: 'the MiB streamed' });
    }
  } finally {
    await service.stop();
  }
  return table;
}

async function dryRuns(seed, rows, limit) {
  const service = await startService(seed.env);
  const table = [];
  try {
    const token = await login(service.base, ADMIN);
    for (const [i, policy] of POLICIES.entries()) {
      const { expected, explained } = limit.policies[i];
      const call = async () => {
        const started = performance.now();
        const body = await api(service.base, token, 'POST', '/api/v1/policies/dry-run', policy.body);
        return { body, ms: performance.now() - started };
      };
      await call(); // warm-up: connection, JIT
      const runs = [];
      for (let k = 0; k < DRY_RUNS; k += 1) runs.push(await call());
      const { body } = runs[0];
      const ms = runs.map((run) => run.ms);
      const add = (spec) => table.push(figure({ scenario: policy.name, ...spec }));
      const countIs = `EXPLAIN ANALYZE count(*) of the newest ${Math.min(rows, DRY_RUN_MAX_ROWS).toLocaleString('en')}`;
      add({ name: 'matched - count(*)', value: body.matched - expected, target: { op: '==', value: 0 } });
      add({ name: `scanned (truncated: ${body.truncated})`, value: body.scanned, target: { op: '==', value: Math.min(rows, DRY_RUN_MAX_ROWS) } });
      add({ name: `matched (block ${body.by_action.block}, coach ${body.by_action.coach}, log ${body.by_action.log})`, value: body.matched });
      add({ name: `p50 ms of ${DRY_RUNS}`, value: percentile(ms, 0.5), limit: limit.countMs, limitIs: countIs });
      add({ name: `p95 ms of ${DRY_RUNS}`, value: percentile(ms, 0.95), limit: limit.countMs, limitIs: countIs });
      add({ name: 'its statement alone (EXPLAIN ANALYZE), ms', value: explained.ms, limit: limit.countMs, limitIs: countIs });
    }
  } finally {
    await service.stop();
  }
  return table;
}

async function measure(label, seed, rows, heapMiB) {
  console.log(`  measuring the limits (COPY, count(*), EXPLAIN of the dry-run's statement)`);
  const limit = await limits(seed, rows);
  const exported = [];
  if (RUN.has('exports')) {
    console.log(`  exports, heap as npm start leaves it`);
    exported.push(...await exports(seed, rows, limit));
    console.log(`  exports, heap capped (--max-old-space-size=${heapMiB})`);
    exported.push(...await exports(seed, rows, limit, heapMiB));
    console.log(`\n${label}: export of ${rows.toLocaleString('en')} interactions in one tenant (one client)`);
    console.table(exported);
  }
  const tried = [];
  if (RUN.has('dry-run')) {
    console.log(`  policy dry-runs`);
    tried.push(...await dryRuns(seed, rows, limit));
    console.log(`\n${label}: policy dry-run over the whole range, ${rows.toLocaleString('en')} interactions (one client)`);
    console.table(tried);
  }
  console.log(`\n${label}: EXPLAIN (ANALYZE, BUFFERS) of the dry-run's statement, policy "${POLICIES[0].name}"`);
  console.log(limit.policies[0].explained.plan);
  // The only figures with a target are the checks (line counts, matched, scanned): a wrong answer fails the run.
  const wrong = [...exported, ...tried].filter((row) => row.ok === 'NO');
  if (wrong.length) throw new Error(`${label}: wrong answers: ${wrong.map((row) => `${row.scenario} ${row.figure} = ${row.value}`).join('; ')}`);
}

export async function runGovernance() {
  const log = (line) => console.log(line);
  const only = process.env.BENCH_STORES;
  if (!only || only === 'pglite') {
    console.log(`\nembedded store (PGlite): seeding ${ROWS_EMBEDDED.toLocaleString('en')} interactions`);
    const seed = await seededEmbedded({ rows: ROWS_EMBEDDED, otherRows: Math.ceil(ROWS_EMBEDDED / 100), log, validated: true });
    try {
      await measure('embedded store (PGlite)', seed, ROWS_EMBEDDED, CAPPED_HEAP_MIB.pglite);
    } finally {
      seed.dispose();
    }
  }
  if (ADMIN_URL && (!only || only === 'postgres')) {
    console.log(`\nPostgreSQL: ${ROWS.toLocaleString('en')} interactions`);
    const seed = await seededPostgres(ADMIN_URL, {
      rows: ROWS, otherRows: Math.ceil(ROWS / 100), log, name: `ugs_bench_governance_${ROWS}`, validated: true,
    });
    await measure('PostgreSQL', seed, ROWS, CAPPED_HEAP_MIB.postgres);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runGovernance();
