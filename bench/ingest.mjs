// Ingest figures: part of `npm run bench` (BENCH_ONLY=ingest), or alone with `node bench/ingest.mjs` after `npm run build`.
// Each scenario runs on a fresh store and measures its limit first, with no service running: pgbench on
// PostgreSQL (the rows one create writes, one transaction per create or per batch), a raw PGlite loop in a
// process of its own on the embedded store. Then the service (SERVE_WORKERS=false) under autocannon; every
// figure is printed beside that limit, its target and both ratios.
//
// Environment:
//   BENCH_INGEST_SCENARIOS=single,batch,embedded,values   which scenarios (single, batch, values: PostgreSQL; embedded: PGlite)
//   BENCH_SECONDS=10               length of each limit and of each measured run
//   BENCH_DATABASE_URL             PostgreSQL server (or TEST_DATABASE_URL); without it only `embedded` runs
//   BENCH_STORES=pglite|postgres   run on one store only
//   BENCH_SERVICE_NODE_ARGS        Node options of the service, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'
import { pathToFileURL } from 'node:url';
import { batch, embedded, single, values } from './lib/ingest-scenarios.mjs';
import { CORES } from './lib/probe.mjs';
import { figure } from './lib/report.mjs';
import { SECONDS } from './lib/service.mjs';
import { benchStores } from './lib/stores.mjs';

const SCENARIOS = [single, batch, embedded, values];

function selectedScenarios() {
  const keys = (process.env.BENCH_INGEST_SCENARIOS ?? SCENARIOS.map((s) => s.key).join(',')).split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = keys.filter((k) => !SCENARIOS.some((s) => s.key === k));
  if (unknown.length) throw new Error(`BENCH_INGEST_SCENARIOS: unknown ${unknown.join(', ')} (known: ${SCENARIOS.map((s) => s.key).join(', ')})`);
  return SCENARIOS.filter((s) => keys.includes(s.key));
}

function sectionContext() {
  const ctx = {
    rows: [],
    notes: [],
    scenario: '',
    add(spec) { ctx.rows.push(figure({ scenario: ctx.scenario, ...spec })); },
    note(text) { ctx.notes.push(text); },
  };
  return ctx;
}

export async function runIngest() {
  const scenarios = selectedScenarios();
  const stores = benchStores();
  for (const scenario of scenarios.filter((s) => !stores.some((store) => store.kind === s.kind))) {
    console.log(`\ningest: ${scenario.key} skipped (${scenario.kind === 'postgres' ? 'no BENCH_DATABASE_URL, or BENCH_STORES' : 'BENCH_STORES'})`);
  }
  for (const store of stores) {
    const mine = scenarios.filter((s) => s.kind === store.kind);
    if (mine.length === 0) continue;
    const ctx = sectionContext();
    console.log(`\n${store.label}: ingest scenarios`);
    for (const scenario of mine) {
      ctx.scenario = scenario.title;
      console.log(`  [${store.label}] ${scenario.title}: limit, then the service (${SECONDS} s each)`);
      const fresh = await store.fresh();
      try {
        await scenario.run(ctx, fresh);
      } catch (error) {
        console.error(error);
        ctx.add({ name: `FAILED: ${error.message.slice(0, 120)}`, value: NaN, reached: false });
      } finally {
        await fresh.dispose();
      }
    }
    console.log(`\n${store.label}: ingest (BENCH_SECONDS=${SECONDS}, ${CORES} cores)`);
    console.table(ctx.rows);
    for (const note of ctx.notes) console.log(`  - ${note}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runIngest();
