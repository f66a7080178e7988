// Query figures of the service, run as a real process on loopback: part of `npm run bench` (BENCH_ONLY=queries),
// or alone with `node bench/queries.mjs` after `npm run build`. Seeds BENCH_SEED_ROWS interactions through the
// batch API, then drives single creates, lists, search and stats with autocannon (16 connections, BENCH_SECONDS).
// Runs on the embedded store, then on PostgreSQL when BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set.
import { pathToFileURL } from 'node:url';
import { ADMIN, api, cannon, interaction, rssMiB, startService } from './lib/service.mjs';
import { benchStores } from './lib/stores.mjs';

const SEED_ROWS = Number(process.env.BENCH_SEED_ROWS ?? 50_000);

function row(name, result) {
  return {
    scenario: name,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function benchStore(label, storeEnv) {
  const { pid, base, stop } = await startService(storeEnv);
  const rows = [];
  try {
    const { token } = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN),
    }).then((r) => r.json());
    const { key } = await api(base, token, 'POST', '/api/v1/api-keys', { name: 'bench', scopes: ['interactions:write', 'interactions:read'] });
    await api(base, token, 'POST', '/api/v1/policies', {
      name: 'Block card numbers', action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] },
    });
    await api(base, token, 'POST', '/api/v1/policies', {
      name: 'Log risky prompts', action: 'log', severity: 'low', conditions: { min_risk_score: 0.7 },
    });

    const seedStart = performance.now();
    for (let done = 0; done < SEED_ROWS; done += 500) {
      const batch = Array.from({ length: 500 }, (_, i) => interaction(done + i));
      const result = await api(base, key, 'POST', '/api/v1/interactions/batch', batch);
      if (result.stored !== 500) throw new Error(`batch stored ${result.stored}`);
    }
    const seedSeconds = (performance.now() - seedStart) / 1000;
    rows.push({ scenario: `batch ingest (${SEED_ROWS} rows, 500 per request, sequential)`, 'req/s': Math.round(SEED_ROWS / 500 / seedSeconds), 'p50 ms': '-', 'p99 ms': '-', errors: 0, 'rows/s': Math.round(SEED_ROWS / seedSeconds) });

    let n = 0;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    rows.push(row('POST /interactions (single, 16 connections)', await cannon({
      url: `${base}/api/v1/interactions`, headers,
      requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, body: JSON.stringify(interaction(n++)) }) }],
    })));
    rows.push(row('GET /interactions (filters + sort, page of 50)', await cannon({
      url: `${base}/api/v1/interactions?platform_id=claude&risk_score_min=0.5&sort=-risk_score&limit=50`, headers,
    })));
    rows.push(row('GET /interactions?classification_type=IBAN', await cannon({
      url: `${base}/api/v1/interactions?classification_type=IBAN&limit=50`, headers,
    })));
    const sample = await api(base, key, 'GET', '/api/v1/interactions?limit=1');
    rows.push(row('GET /interactions/search?content_hash=', await cannon({
      url: `${base}/api/v1/interactions/search?content_hash=${sample.data[0].content_hash}`, headers,
    })));
    rows.push(row('GET /stats', await cannon({ url: `${base}/api/v1/stats`, headers: { authorization: `Bearer ${token}` }, connections: 4 })));
    console.log(`\n${label}: service RSS after the run ${rssMiB(pid).toFixed(0)} MiB`);
    console.table(rows);
  } finally {
    await stop();
  }
}

export async function runQueries() {
  for (const { label, fresh } of benchStores()) {
    const store = await fresh();
    try {
      await benchStore(label, store.env);
    } finally {
      await store.dispose();
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runQueries();
