// The three ingest scenarios. Each runs on a fresh store: first its limit (pgbench, or the raw PGlite loop)
// with no service running, then the service under autocannon; `ctx.add` prints each figure beside its limit.
import { loadService } from './ingest-service.mjs';
import { pgbenchLimit } from './pgbench.mjs';
import { pgliteLoopLimit } from './pglite-loop.mjs';
import { cpuText } from './probe.mjs';
import { SECONDS, cli } from './service.mjs';
import { withClient } from './stores.mjs';

export const TARGETS = { single: 1.2, singleP99: 50, batch: 0.8, embedded: 0.5, postgresRssMiB: 200, embeddedRssMiB: 400 };
const BATCH = 500;

/** pgbench on the fresh database, migrated, in a tenant of its own; what it wrote is then emptied for the service. */
async function postgresLimit(store, { clients, rows }) {
  await cli(store.env, 'migrate');
  const tenantId = crypto.randomUUID();
  const checkpoint = (client) => client.query('checkpoint').catch(() => {});
  await withClient(store.url, async (client) => {
    await client.query(`insert into tenants (id, name, created_at) values ($1, 'pgbench', now())`, [tenantId]);
    await checkpoint(client);
  });
  const limit = await pgbenchLimit({ url: store.url, tenantId, clients, rows, seconds: SECONDS });
  await withClient(store.url, async (client) => {
    await client.query('truncate interactions, interaction_classification_types, interaction_fingerprints, webhook_messages, webhook_jobs restart identity');
    await client.query('delete from tenants where id = $1', [tenantId]);
  });
  return limit;
}

const pgbenchText = (limit) => `pgbench ${limit.transactions} tx${limit.notify ? ' WITH pg_notify (BENCH_PGBENCH_NOTIFY)' : ''}, `
  + `${limit.failed} failed, payload ${limit.payloadBytes} bytes; CPU: ${cpuText(limit.cpu)}`;

/** The figures every scenario has: answers, rows stored against 2xx answers, memory; notes on CPU and exit. */
function common(ctx, run, { size }) {
  const { result } = run;
  ctx.add({ name: 'errors (non-2xx, failed)', value: result.errors + result.non2xx, target: { op: '==', value: 0 } });
  const most = run.expected + run.unanswered * size;
  ctx.add({ name: 'rows stored', value: run.stored, limit: run.expected, limitIs: `2xx answers x ${size}`, target: { op: 'between', value: [run.expected, most] } });
  if (run.stored < run.expected || run.stored > most) {
    const text = `MISMATCH: ${run.stored} interactions rows stored for ${result['2xx']} 2xx answers x ${size} (${run.unanswered} requests cut by the end of the run)`;
    console.error(`\n!!! ${ctx.scenario}: ${text}\n`);
    ctx.note(`${ctx.scenario}: ${text}`);
  } else if (run.stored > run.expected) {
    ctx.note(`${ctx.scenario}: ${run.stored - run.expected} rows of requests cut by the end of the run (${run.unanswered} unanswered)`);
  }
  if (result.non2xx) ctx.note(`${ctx.scenario}: status codes ${JSON.stringify(result.statusCodeStats)}`);
  ctx.note(`${ctx.scenario}: CPU during the run, % of one core: ${cpuText(run.cpu)}; `
    + `the service's main thread waited for a CPU ${Math.round(run.waitingPercent)} % of the time`);
  if (run.exit.code !== 0) ctx.note(`${ctx.scenario}: service exit code ${run.exit.code}, signal ${run.exit.signal}`);
}

/**
 * The service's memory: RSS right after /readyz, the highest RSS sampled during the run, and the process's
 * peak since it started (VmHWM); on the embedded store beside the raw loop's (after open, lifetime peak).
 */
function memory(ctx, run, { target, limit }) {
  const goal = target && { op: '<=', value: target };
  ctx.add({ name: 'RSS after start MiB', value: run.rssStartMiB, limit: limit?.rssAfterOpenMiB, limitIs: 'raw loop after open' });
  ctx.add({ name: 'peak RSS in the run MiB', value: run.peakRssMiB, limit: limit?.hwmMiB ?? run.rssStartMiB,
    limitIs: limit ? 'raw loop peak' : 'RSS after start', target: goal });
  ctx.add({ name: 'peak RSS since start MiB', value: run.hwmMiB, limit: limit?.hwmMiB, limitIs: 'raw loop peak', target: goal });
}

const perSecond = (run, size) => (run.result['2xx'] * size) / run.result.duration;

export const single = {
  key: 'single',
  kind: 'postgres',
  title: 'POST /interactions, 50 connections',
  async run(ctx, store) {
    const limit = await postgresLimit(store, { clients: 50, rows: 1 });
    ctx.note(`${ctx.scenario}: ${pgbenchText(limit)}`);
    const run = await loadService(store, { connections: 50, size: 1 });
    ctx.add({ name: 'creates/s', value: perSecond(run, 1), limit: limit.tps, limitIs: 'pgbench tx/s, 50 clients', target: { op: '>=', times: TARGETS.single } });
    ctx.add({ name: 'p50 ms', value: run.result.latency.p50, limit: limit.p50, limitIs: 'pgbench p50' });
    ctx.add({ name: 'p99 ms', value: run.result.latency.p99, limit: limit.p99, limitIs: 'pgbench p99', target: { op: '<=', value: TARGETS.singleP99 } });
    memory(ctx, run, { target: TARGETS.postgresRssMiB });
    common(ctx, run, { size: 1 });
  },
};

export const batch = {
  key: 'batch',
  kind: 'postgres',
  title: `POST /interactions/batch of ${BATCH}, 4 connections`,
  async run(ctx, store) {
    const limit = await postgresLimit(store, { clients: 4, rows: BATCH });
    ctx.note(`${ctx.scenario}: ${pgbenchText(limit)}`);
    const run = await loadService(store, { connections: 4, size: BATCH });
    ctx.add({ name: 'items/s', value: perSecond(run, BATCH), limit: limit.rowsPerSecond, limitIs: `pgbench rows/s, 4 clients x ${BATCH}`, target: { op: '>=', times: TARGETS.batch } });
    ctx.add({ name: 'p50 ms', value: run.result.latency.p50, limit: limit.p50, limitIs: 'pgbench p50' });
    ctx.add({ name: 'p99 ms', value: run.result.latency.p99, limit: limit.p99, limitIs: 'pgbench p99' });
    memory(ctx, run, {});
    common(ctx, run, { size: BATCH });
  },
};

export const embedded = {
  key: 'embedded',
  kind: 'pglite',
  title: 'POST /interactions, 50 connections',
  async run(ctx, store) {
    const limit = await pgliteLoopLimit(SECONDS);
    ctx.note(`${ctx.scenario}: raw loop ${limit.transactions} tx; its CPU ${Math.round(limit.cpuPercent)} % of one core while measured, `
      + `its main thread waited for a CPU ${Math.round(limit.waitingPercent)} % of its life`);
    const run = await loadService(store, { connections: 50, size: 1 });
    ctx.add({ name: 'creates/s', value: perSecond(run, 1), limit: limit.tps, limitIs: 'raw PGlite loop tx/s', target: { op: '>=', times: TARGETS.embedded } });
    ctx.add({ name: 'p50 ms', value: run.result.latency.p50, limit: limit.p50, limitIs: 'one loop tx p50' });
    ctx.add({ name: 'p99 ms', value: run.result.latency.p99, limit: limit.p99, limitIs: 'one loop tx p99' });
    memory(ctx, run, { target: TARGETS.embeddedRssMiB, limit });
    common(ctx, run, { size: 1 });
  },
};

/**
 * Detected values cost: single creates and batches, each beside one pgbench limit (the usual mix's rows),
 * run twice by the service: interactions without values, then each with two (an IBAN and an email,
 * encrypted and fingerprinted). Both ratios keep their targets; the last line is their quotient.
 */
export const values = {
  key: 'values',
  kind: 'postgres',
  title: 'without and with detected values',
  async run(ctx, store) {
    for (const shape of [{ name: 'creates/s', connections: 50, size: 1, target: TARGETS.single },
      { name: `items/s (batches of ${BATCH})`, connections: 4, size: BATCH, target: TARGETS.batch }]) {
      const limit = await postgresLimit(store, { clients: shape.connections, rows: shape.size });
      ctx.note(`${ctx.scenario}, ${shape.name}: ${pgbenchText(limit)}`);
      const figures = {};
      for (const values of ['none', 'every']) {
        const run = await loadService(store, { connections: shape.connections, size: shape.size, values });
        figures[values] = perSecond(run, shape.size);
        ctx.add({ name: `${shape.name}, values: ${values}`, value: figures[values], limit: shape.size === 1 ? limit.tps : limit.rowsPerSecond,
          limitIs: `pgbench, ${shape.connections} clients x ${shape.size}`, target: { op: '>=', times: shape.target } });
        ctx.add({ name: `p99 ms, values: ${values}`, value: run.result.latency.p99, limit: limit.p99, limitIs: 'pgbench p99' });
        common(ctx, run, { size: shape.size });
      }
      ctx.add({ name: `${shape.name}: with values / without`, value: figures.every / figures.none, limitIs: 'ratio' });
    }
  },
};
