// Webhook-delivery figures: part of `npm run bench`, or alone with `node bench/delivery.mjs` after `npm run build`.
// Runs on the embedded store, then on PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set;
// every scenario gets a fresh store (temp DATA_DIR, or a new database dropped afterwards).
// Deliveries go over HTTPS to bench/receiver.mjs (its own process, throwaway CA made with openssl).
//
// Environment (sizes default to the documented scenarios):
//   BENCH_SECONDS=10               length of scenario 1 and of the receiver-ceiling run
//   BENCH_SCENARIOS=latency,drain,burst,nohook,fairness   which scenarios, in this order
//   BENCH_LATENCY_RATE=200         1. single creates per second
//   BENCH_DRAIN_EVENTS=10000       2. events queued with SERVE_WORKERS=false, then drained
//   BENCH_BURST_CREATES=10000      3. single creates from autocannon ...
//   BENCH_BURST_CONNECTIONS=50        ... on this many connections
//   BENCH_NOHOOK_ROWS=1000000      4. rows ingested (batches of 500, 4 connections) with no webhook
//   BENCH_FAIR_ROWS=100000         5. tenant A's events to the slow (1 s) receiver path
//   BENCH_FAIR_CREATES=200         5. tenant B's single creates at 20/s
//   BENCH_BUDGET_SECONDS=180       most a scenario waits for its deliveries ("not reached" beyond)
//   BENCH_INGEST_BUDGET_SECONDS=1800  most an ingest may take (scenarios 2, 4, 5)
//   RECEIVER_SLOW_MS=1000          answer delay of the receiver's /slow... paths
//   WEBHOOK_*                      passed to the service (e.g. WEBHOOK_CONCURRENCY), beside the
//                                  WEBHOOK_CA_FILE and WEBHOOK_ALLOW_PRIVATE_TARGETS=true the bench sets
//   BENCH_ONLY=ingest|queries|delivery  (npm run bench) run only one part
//   BENCH_STORES=pglite|postgres   run on one store only
import { pathToFileURL } from 'node:url';
import { createCertificates } from './lib/certs.mjs';
import { startReceiver } from './lib/receiver-client.mjs';
import { measureReceiverLimits } from './lib/receiver-limits.mjs';
import { figure } from './lib/report.mjs';
import { burst } from './lib/scenario-burst.mjs';
import { drain } from './lib/scenario-drain.mjs';
import { fairness } from './lib/scenario-fairness.mjs';
import { latency } from './lib/scenario-latency.mjs';
import { nohook } from './lib/scenario-nohook.mjs';
import { SECONDS } from './lib/service.mjs';
import { benchStores } from './lib/stores.mjs';

const size = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};

const SIZES = {
  latencyRate: size('BENCH_LATENCY_RATE', 200),
  drainEvents: size('BENCH_DRAIN_EVENTS', 10_000),
  burstCreates: size('BENCH_BURST_CREATES', 10_000),
  burstConnections: size('BENCH_BURST_CONNECTIONS', 50),
  nohookRows: size('BENCH_NOHOOK_ROWS', 1_000_000),
  fairRows: size('BENCH_FAIR_ROWS', 100_000),
  fairCreates: size('BENCH_FAIR_CREATES', 200),
  budgetMs: size('BENCH_BUDGET_SECONDS', 180) * 1000,
  ingestBudgetMs: size('BENCH_INGEST_BUDGET_SECONDS', 1800) * 1000,
};

const TARGETS = {
  postgres: { latencyP50: 20, latencyP99: 100, drainRate: 3000, drainShare: 0.25 },
  pglite: { latencyP50: 50, drainRate: 1000 },
  both: { burstGapSeconds: 3, nohookCpuPercent: 5, nohookMB: 10, fairP99: 100 },
};

const SCENARIOS = [latency, drain, burst, nohook, fairness];

function selectedScenarios() {
  const keys = (process.env.BENCH_SCENARIOS ?? SCENARIOS.map((s) => s.key).join(',')).split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = keys.filter((k) => !SCENARIOS.some((s) => s.key === k));
  if (unknown.length) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')} (known: ${SCENARIOS.map((s) => s.key).join(', ')})`);
  return SCENARIOS.filter((s) => keys.includes(s.key));
}

/** Everything a scenario needs about the store section it runs in. */
function sectionContext(store, certs, receiver) {
  const rows = [];
  const notes = [];
  let scenario = '';
  let limits;
  const ctx = {
    kind: store.kind,
    label: store.label,
    prefix: `/${store.kind}`,
    sizes: SIZES,
    targets: { ...TARGETS.both, ...TARGETS[store.kind] },
    certs,
    receiver,
    freshStore: store.fresh,
    rows,
    notes,
    begin(title) { scenario = title; },
    add(spec) { rows.push(figure({ scenario, ...spec })); },
    note(text) { notes.push(text); },
    log(text) { console.log(`  [${store.label}] ${scenario}: ${text}`); },
    /** The receiver's ceiling and floor, measured once per store section, when first needed (no service running). */
    limits() {
      limits ??= measureReceiverLimits(receiver, certs.caFile, ctx.prefix).then((measured) => {
        notes.push(`receiver ceiling ${Math.round(measured.ceiling)} req/s (autocannon, 16 connections, ${SECONDS} s, ${measured.bodyBytes}-byte `
          + `${measured.synthetic ? 'synthetic' : 'real'} interaction.created envelope, ${measured.ceilingErrors} errors); `
          + `round trip on one connection p50 ${measured.floorP50.toFixed(2)} ms, p99 ${measured.floorP99.toFixed(2)} ms`);
        return measured;
      }, (error) => {
        limits = undefined;
        throw error;
      });
      return limits;
    },
  };
  return ctx;
}

export async function runDelivery() {
  const scenarios = selectedScenarios();
  const certs = createCertificates();
  let receiver;
  try {
    receiver = await startReceiver(certs);
    for (const store of benchStores()) {
      const ctx = sectionContext(store, certs, receiver);
      console.log(`\n${store.label}: webhook delivery scenarios`);
      for (const scenario of scenarios) {
        ctx.begin(scenario.title(SIZES));
        try {
          await scenario.run(ctx);
        } catch (error) {
          console.error(error);
          ctx.add({ name: `FAILED: ${error.message.slice(0, 120)}`, value: NaN, reached: false });
        }
      }
      console.log(`\n${store.label}: webhook deliveries (BENCH_SECONDS=${SECONDS})`);
      console.table(ctx.rows);
      for (const note of ctx.notes) console.log(`  - ${note}`);
    }
  } finally {
    await receiver?.close();
    await certs.dispose();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const only = process.env.BENCH_ONLY;
  if (only && only !== 'delivery') console.log(`BENCH_ONLY=${only}: no delivery scenarios`);
  else await runDelivery();
}
