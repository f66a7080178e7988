// Load figures for the service, run as a real process on loopback: `npm run bench`.
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) adds a run on PostgreSQL; BENCH_SECONDS sets each scenario's length.
// Then the webhook-delivery scenarios of bench/delivery.mjs; BENCH_ONLY=api or BENCH_ONLY=delivery runs one part.
import { runDelivery } from './delivery.mjs';
import { ADMIN, api, cannon, interaction, rssMiB, startService } from './lib/service.mjs';
import { benchStores } from './lib/stores.mjs';

const SEED_ROWS = Number(process.env.BENCH_SEED_ROWS ?? 50_000);
const ONLY = process.env.BENCH_ONLY;

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

async function main() {
  if (ONLY && !['api', 'delivery'].includes(ONLY)) throw new Error('BENCH_ONLY must be api or delivery');
  if (ONLY !== 'delivery') {
    for (const { label, fresh } of benchStores()) {
      const store = await fresh();
      try {
        await benchStore(label, store.env);
      } finally {
        await store.dispose();
      }
    }
  }
  if (ONLY !== 'api') await runDelivery();
}

await main();
