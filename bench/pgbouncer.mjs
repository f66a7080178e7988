// Webhook latency through PgBouncer: part of `npm run bench` (BENCH_ONLY=pgbouncer), or alone with
// `node bench/pgbouncer.mjs` after `npm run build`. PostgreSQL only (BENCH_DATABASE_URL or TEST_DATABASE_URL).
// The delivery bench's latency scenario (bench/lib/scenario-latency.mjs: single creates paced at
// BENCH_LATENCY_RATE/s for BENCH_SECONDS, each 201 matched with the HTTPS receiver's receipt) three ways, one
// after the other, each on a fresh database and service process:
//   direct   DATABASE_URL names the server: the limit of the other two
//   listen   DATABASE_URL through a PgBouncer of the bench's own in transaction mode, DATABASE_LISTEN_URL direct
//   poll     the same without DATABASE_LISTEN_URL: the workers find new work by their poll, every second
// PgBouncer gets BENCH_PGBOUNCER_POOL_SIZE server connections (default 5), fewer than the service's pool
// (DATABASE_POOL_SIZE, 10). Target: the p50 of `listen` within 2x the p50 of `direct`.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { SIZES, sectionContext, withReceiver } from './lib/delivery-section.mjs';
import { PGBOUNCER_BIN, startPgBouncer } from './lib/pgbouncer.mjs';
import { figure } from './lib/report.mjs';
import { measureLatency, noteLatencyIssues } from './lib/scenario-latency.mjs';
import { SECONDS } from './lib/service.mjs';
import { ADMIN_URL, freshPostgresStore } from './lib/stores.mjs';

const SERVICE_POOL_SIZE = 10;
const BOUNCER_POOL_SIZE = Number(process.env.BENCH_PGBOUNCER_POOL_SIZE ?? 5);
const TARGET_TIMES = 2;

const WAYS = [
  { key: 'direct', label: 'direct' },
  { key: 'listen', label: 'PgBouncer + DATABASE_LISTEN_URL', bouncer: true, listen: true },
  { key: 'poll', label: 'PgBouncer, poll only', bouncer: true, listen: false },
];

/** A fresh database whose service reaches it the way `way` says. */
const freshStore = (way, bouncer) => async () => {
  const store = await freshPostgresStore(ADMIN_URL);
  if (!bouncer) return store;
  return { ...store, env: { DATABASE_URL: bouncer.urlFor(store.url), ...(way.listen ? { DATABASE_LISTEN_URL: store.url } : {}) } };
};

async function measureWay(way, certs, receiver, notes) {
  const bouncer = way.bouncer ? await startPgBouncer(ADMIN_URL, { poolSize: BOUNCER_POOL_SIZE }) : undefined;
  try {
    const ctx = sectionContext({ label: way.label, kind: 'postgres', prefix: `/pgbouncer-${way.key}`, fresh: freshStore(way, bouncer) }, certs, receiver);
    ctx.begin(`latency ${SIZES.latencyRate}/s`);
    const measured = await measureLatency(ctx, { DATABASE_POOL_SIZE: String(SERVICE_POOL_SIZE) });
    noteLatencyIssues(ctx, way.label, measured);
    notes.push(...ctx.notes);
    return { ...measured, version: bouncer?.version };
  } finally {
    await bouncer?.stop();
  }
}

export async function runPgBouncer() {
  if (process.env.BENCH_STORES === 'pglite') return;
  if (!ADMIN_URL) {
    console.log('\nPgBouncer: skipped, no BENCH_DATABASE_URL (a PostgreSQL server the bench may create databases on)');
    return;
  }
  if (!existsSync(PGBOUNCER_BIN)) {
    console.log(`\nPgBouncer: skipped, no ${PGBOUNCER_BIN} (Debian's pgbouncer package, or PGBOUNCER_BIN)`);
    return;
  }
  await withReceiver(async (certs, receiver) => {
    const notes = [];
    const measured = {};
    for (const way of WAYS) {
      console.log(`\nPgBouncer: webhook latency, ${way.label}`);
      measured[way.key] = await measureWay(way, certs, receiver, notes);
    }
    const { direct } = measured;
    const rows = [];
    for (const way of WAYS) {
      const { p50, p99, matched, all, run } = measured[way.key];
      const besideDirect = (value) => (way.key === 'direct' ? {} : { limit: value, limitIs: 'direct, same run' });
      rows.push(
        figure({ scenario: way.label, name: 'p50 201->receipt ms', value: p50, ...besideDirect(direct.p50),
          target: way.key === 'listen' ? { op: '<=', times: TARGET_TIMES } : undefined, reached: Number.isFinite(p50) }),
        figure({ scenario: way.label, name: 'p99 201->receipt ms', value: p99, ...besideDirect(direct.p99), reached: Number.isFinite(p99) }),
        figure({ scenario: way.label, name: 'interactions received', value: matched, limit: run.created.length, limitIs: 'created',
          target: { op: '==', value: run.created.length }, reached: all }),
      );
    }
    console.log(`\nPgBouncer ${measured.listen.version} in transaction mode, ${BOUNCER_POOL_SIZE} server connections, `
      + `service pool ${SERVICE_POOL_SIZE}: webhook latency at ${SIZES.latencyRate} creates/s (BENCH_SECONDS=${SECONDS})`);
    console.table(rows);
    for (const note of notes) console.log(`  - ${note}`);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runPgBouncer();
