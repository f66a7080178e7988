// Scenario 4: BENCH_NOHOOK_ROWS interactions through the batch API (500 per request, 4 connections) for a
// tenant with no webhook; 5 s after the last batch: the service's CPU over those 5 s and the queue tables.
// PostgreSQL is queried directly with pg; the embedded store is opened from here once the service stopped.
import { batchIngest } from './load.mjs';
import { queueTables } from './queue-tables.mjs';
import { withFreshStore, withService } from './delivery-common.mjs';
import { withClient } from './stores.mjs';
import { ADMIN, apiKey, cpuSeconds, login, sleep } from './service.mjs';

const QUIET_SECONDS = 5;
const MB = 1_000_000;

/** CPU of `pid` over the next `seconds`, in % of one core. */
async function cpuPercent(pid, seconds) {
  const before = cpuSeconds(pid);
  await sleep(seconds * 1000);
  return ((cpuSeconds(pid) - before) / seconds) * 100;
}

async function embeddedQueueTables(dataDir) {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir);
  try {
    return await queueTables(async (text, params) => (await db.query(text, params)).rows);
  } finally {
    await db.close();
  }
}

export const nohook = {
  key: 'nohook',
  title: (sizes) => `4 no webhook ${sizes.nohookRows}`,
  async run(ctx) {
    const { nohookRows: total, ingestBudgetMs } = ctx.sizes;
    const outcome = await withFreshStore(ctx, async (store) => {
      const measured = await withService(ctx, store, {}, async ({ base, pid }) => {
        const token = await login(base, ADMIN);
        const key = await apiKey(base, token);
        const idleCpu = await cpuPercent(pid, QUIET_SECONDS);
        ctx.log(`ingesting ${total} rows, 500 per batch on 4 connections`);
        const ingest = await batchIngest({ base, key, total, concurrency: 4, budgetMs: ingestBudgetMs });
        ctx.log(`${ingest.stored} rows in ${ingest.seconds.toFixed(1)} s; measuring the next ${QUIET_SECONDS} s`);
        const cpu = await cpuPercent(pid, QUIET_SECONDS);
        const tables = store.kind === 'postgres'
          ? await withClient(store.url, async (client) => queueTables(async (text, params) => (await client.query(text, params)).rows))
          : undefined;
        return { idleCpu, ingest, cpu, tables };
      });
      // The embedded store belongs to the service's process: it is read once the service has stopped.
      return { ...measured, tables: measured.tables ?? await embeddedQueueTables(store.dataDir) };
    });
    const { ingest, tables } = outcome;
    ctx.add({ name: 'ingest rows/s', value: ingest.stored / ingest.seconds, reached: ingest.reached });
    ctx.add({ name: `CPU % of a core, ${QUIET_SECONDS} s after`, value: outcome.cpu,
      limit: outcome.idleCpu, limitIs: 'idle, before ingest', target: { op: '<', value: ctx.targets.nohookCpuPercent } });
    ctx.add({ name: 'rows queued', value: tables.queued, target: { op: '==', value: 0 } });
    ctx.add({ name: 'queue tables MB', value: tables.bytes / MB, target: { op: '<', value: ctx.targets.nohookMB } });
    const when = ctx.kind === 'pglite' ? 'read after the service stopped' : 'read while the service ran';
    const detail = tables.tables.map((t) => `${t.table} ${(t.bytes / MB).toFixed(1)} MB, ${t.rows} rows, ${t.queued} queued`);
    ctx.note(`nohook tables (${when}): ${detail.join('; ') || 'none of them exists'}`);
    if (!ingest.reached) ctx.note(`nohook: not reached, ${ingest.stored} of ${total} rows ingested within BENCH_INGEST_BUDGET_SECONDS`);
  },
};
