// The OpenAPI fuzzer at size: part of `npm run bench` (BENCH_ONLY=fuzz), or alone with `node bench/fuzz.mjs`.
// Runs the fuzz test (test/fuzz/openapi-fuzz.<store>.test.ts, through Vitest, in-process with Fastify's inject) with
// BENCH_FUZZ_REQUESTS requests per store (default 100,000; BENCH_FUZZ_SEED, default the test's, replays a run),
// and prints what it counted: requests, 5xx, undocumented statuses, schema violations, stack traces, leaks
// (each targeted at 0), with the statuses seen. The test's own findings (the first of each kind and operation,
// each with its request) are printed above the table when there are any.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { trackChild } from './lib/cleanup.mjs';
import { figure } from './lib/report.mjs';
import { ADMIN_URL, benchStores } from './lib/stores.mjs';

const REQUESTS = Number(process.env.BENCH_FUZZ_REQUESTS ?? 100_000);
const root = new URL('..', import.meta.url).pathname;

/** One store's run: the test's counts (its report file), whatever the test concluded. */
async function fuzzStore(kind) {
  const dir = mkdtempSync(join(tmpdir(), 'ugs-bench-fuzz-'));
  const reportFile = join(dir, 'report.json');
  try {
    const env = { ...process.env, FUZZ_REQUESTS: String(REQUESTS), FUZZ_REPORT: reportFile };
    if (process.env.BENCH_FUZZ_SEED) env.FUZZ_SEED = process.env.BENCH_FUZZ_SEED;
    // The PostgreSQL file runs when TEST_DATABASE_URL is set.
    if (kind === 'postgres') env.TEST_DATABASE_URL = ADMIN_URL;
    else delete env.TEST_DATABASE_URL;
    const child = trackChild(spawn(join(root, 'node_modules/.bin/vitest'), [
      'run', `test/fuzz/openapi-fuzz.${kind}.test.ts`, '--reporter=dot',
    ], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] }));
    await new Promise((resolve) => child.on('exit', resolve));
    return JSON.parse(readFileSync(reportFile, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runFuzz() {
  for (const store of benchStores()) {
    console.log(`\n${store.label}: ${REQUESTS.toLocaleString('en')} generated requests over the OpenAPI document`);
    const { counts, seed, foreignValues } = await fuzzStore(store.kind);
    const scenario = `seed ${seed}`;
    const zero = { op: '==', value: 0 };
    console.table([
      figure({ scenario, name: 'requests', value: counts.requests, target: { op: '==', value: REQUESTS } }),
      figure({ scenario, name: 'requests/s (sent and checked one at a time)', value: counts.requests / counts.seconds }),
      figure({ scenario, name: '5xx', value: counts.server_error, target: zero }),
      figure({ scenario, name: 'undocumented statuses', value: counts.undocumented_status, target: zero }),
      figure({ scenario, name: 'schema violations', value: counts.schema_violation, target: zero }),
      figure({ scenario, name: 'stack traces', value: counts.stack_trace, target: zero }),
      figure({ scenario, name: "leaks (another tenant's values)", value: counts.leak, target: zero }),
      figure({ scenario, name: "another tenant's values searched for, at the end", value: foreignValues.end }),
    ]);
    console.log(`  statuses: ${JSON.stringify(counts.byStatus)}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runFuzz();
