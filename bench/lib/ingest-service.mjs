// The service side of the ingest bench: the service on a fresh store with the bench's tenant set up
// (API key, two policies, one interaction.created webhook), loaded by autocannon while a probe samples it.
import { ADMIN, api, apiKey, cannon, interaction, login, rssMiB, sleep, startService } from './service.mjs';
import { postgresPids, startProbe } from './probe.mjs';
import { withClient } from './stores.mjs';

const BATCH_POOL = 50;

/** The two policies of the bench tenant: card numbers blocked (each raises an alert), risky prompts logged. */
export async function benchPolicies(base, token) {
  await api(base, token, 'POST', '/api/v1/policies', {
    name: 'Block card numbers', action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] },
  });
  await api(base, token, 'POST', '/api/v1/policies', {
    name: 'Log risky prompts', action: 'log', severity: 'low', conditions: { min_risk_score: 0.7 },
  });
}

/** The bench tenant: the key, the two policies, and a webhook never called (no workers). */
async function setUp(base) {
  const token = await login(base, ADMIN);
  const key = await apiKey(base, token);
  await benchPolicies(base, token);
  await api(base, token, 'POST', '/api/v1/webhooks', { url: 'https://127.0.0.1:9/hook', events: ['interaction.created'] });
  return key;
}

/** Rows in `interactions`: counted in the database on PostgreSQL, by the API's `total` on the embedded store. */
async function countRows(store, base, key) {
  if (store.kind === 'postgres') {
    return withClient(store.url, async (client) => Number((await client.query('select count(*) from interactions')).rows[0].count));
  }
  return (await api(base, key, 'GET', '/api/v1/interactions?limit=1')).total;
}

/** The request of each scenario: one generated interaction per request, or a batch from a pool of bodies. */
function ingestRequest(size, values) {
  let n = 0;
  if (size === 1) {
    return { path: '/api/v1/interactions', setupRequest: (request) => ({ ...request, body: JSON.stringify(interaction(n++, values)) }) };
  }
  const bodies = Array.from({ length: BATCH_POOL }, (_, b) => JSON.stringify(Array.from({ length: size }, (_, i) => interaction(b * size + i, values))));
  return { path: '/api/v1/interactions/batch', setupRequest: (request) => ({ ...request, body: bodies[n++ % BATCH_POOL] }) };
}

async function checkpoint(store) {
  if (store.kind === 'postgres') await withClient(store.url, (client) => client.query('checkpoint')).catch(() => {});
}

/**
 * Starts the service on `store` (no workers), sets the tenant up, warms up with `connections` x 4 requests,
 * then runs autocannon for BENCH_SECONDS on `connections` connections, each request storing `size` rows
 * (with the detected values `values` gives: bench/lib/interactions.mjs).
 * Returns `{ result, rssStartMiB, peakRssMiB, hwmMiB, cpu, waitingPercent, stored, expected, unanswered, exit }`: RSS right after
 * /readyz, its peak sampled during the run and the process's high-water mark since it started (VmHWM); `stored`
 * rows counted during the measured run, `expected` = its 2xx answers x size, `unanswered` requests cut by its end.
 */
export async function loadService(store, { connections, size, values = 'mix' }) {
  const service = await startService({ ...store.env, SERVE_WORKERS: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  try {
    const rssStartMiB = rssMiB(service.pid);
    const key = await setUp(service.base);
    const { path, setupRequest } = ingestRequest(size, values);
    const options = {
      url: `${service.base}${path}`, connections, timeout: 120,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      requests: [{ method: 'POST', setupRequest }],
    };
    await cannon({ ...options, amount: connections * 4 });
    await sleep(500);
    const before = await countRows(store, service.base, key);
    await checkpoint(store);
    const database = store.url && new URL(store.url).pathname.slice(1);
    const probe = startProbe({
      pid: service.pid,
      groups: { bench: () => [process.pid], ...(database ? { postgres: () => postgresPids(database) } : {}) },
    });
    const result = await cannon(options);
    const { peakRssMiB, hwmMiB, cpu, waitingPercent } = probe.stop();
    await sleep(1000); // requests cut by the end of the run may still commit
    const stored = (await countRows(store, service.base, key)) - before;
    const { process: serviceCpu, ...others } = cpu;
    return {
      result, rssStartMiB, peakRssMiB, hwmMiB, cpu: { service: serviceCpu, ...others }, waitingPercent, stored,
      expected: result['2xx'] * size, unanswered: Math.max(0, result.requests.sent - result.requests.total),
      exit: await service.stop(),
    };
  } finally {
    await service.stop();
  }
}
