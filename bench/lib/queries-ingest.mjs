// What maintaining the interaction counts costs ingest: the ingest bench's service runs (batches of 500 on 4
// connections, single creates on 50) on fresh PostgreSQL databases, once as shipped with the counts compacted
// every second beside the load, once with the counts' triggers off (`alter table interactions disable
// trigger user`: they are the only user triggers on the table) and nothing to compact.
import { loadService } from './ingest-service.mjs';
import { figure } from './report.mjs';
import { cli, sleep } from './service.mjs';
import { freshPostgresStore, withClient } from './stores.mjs';

const RUNS = [['batches of 500, 4 connections', { connections: 4, size: 500 }], ['single creates, 50 connections', { connections: 50, size: 1 }]];

/** Compacts the counts every second until stopped, as the service's worker does (the ingest bench runs none). */
function compactingBeside(url) {
  let stopped = false;
  const running = (async () => {
    const { openOwnerStore: openStore } = await import('./owner-store.mjs');
    const { compactCounts } = await import('../../dist/modules/counts/compaction.js');
    const store = await openStore({ databaseUrl: url, poolSize: 1 });
    try {
      while (!stopped) {
        if ((await compactCounts(store.db)) === 0) await sleep(1000);
      }
    } finally {
      await store.close();
    }
  })();
  return async () => {
    stopped = true;
    await running;
  };
}

async function rate(counts, { connections, size }) {
  const store = await freshPostgresStore();
  try {
    await cli(store.env, 'migrate');
    if (!counts) await withClient(store.url, (client) => client.query('alter table interactions disable trigger user'));
    const stopCompacting = counts ? compactingBeside(store.url) : async () => {};
    try {
      const run = await loadService(store, { connections, size });
      return (run.result['2xx'] * size) / run.result.duration;
    } finally {
      await stopCompacting();
    }
  } finally {
    await store.dispose();
  }
}

export async function ingestWithAndWithoutCounts(log) {
  const table = [];
  for (const [name, shape] of RUNS) {
    log(`  ingest ${name}: without the counts, then with them`);
    const without = await rate(false, shape);
    const withCounts = await rate(true, shape);
    table.push(figure({ scenario: name, name: 'rows/s with the counts', value: withCounts, limit: without,
      limitIs: 'rows/s without them', target: { op: '>=', times: 0.9 } }));
  }
  console.log('\nPostgreSQL: ingest with the counts maintained against without (target: >= 0.9 x)');
  console.table(table);
}
