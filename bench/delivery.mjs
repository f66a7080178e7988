// Webhook-delivery figures: part of `npm run bench`, or alone with `node bench/delivery.mjs` after `npm run build`.
// Runs on the embedded store, then on PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set;
// every scenario gets a fresh store (temp DATA_DIR, or a new database dropped afterwards).
// Deliveries go over HTTPS to bench/receiver.mjs (its own process, throwaway CA made with openssl);
// the syslog scenario's go over TLS to bench/lib/syslog-receiver.mjs (its own process, the same CA).
//
// Environment (sizes default to the documented scenarios):
//   BENCH_SECONDS=10               length of scenario 1 and of the receiver-ceiling run
//   BENCH_SCENARIOS=latency,drain,drain-hec,drain-syslog,burst,nohook,fairness   which scenarios, in this order
//   BENCH_LATENCY_RATE=200         1. single creates per second
//   BENCH_DRAIN_EVENTS=10000       2. events queued with SERVE_WORKERS=false, then drained
//   BENCH_HEC_EVENTS=20000         2b. the same, to a splunk_hec webhook (batches of up to 100 events)
//   BENCH_SYSLOG_EVENTS=20000      2c. the same, to a syslog webhook (one TLS connection to bench/lib/syslog-receiver.mjs)
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
import { SIZES, sectionContext, withReceiver } from './lib/delivery-section.mjs';
import { burst } from './lib/scenario-burst.mjs';
import { drain } from './lib/scenario-drain.mjs';
import { drainHec } from './lib/scenario-drain-hec.mjs';
import { drainSyslog } from './lib/scenario-drain-syslog.mjs';
import { fairness } from './lib/scenario-fairness.mjs';
import { latency } from './lib/scenario-latency.mjs';
import { nohook } from './lib/scenario-nohook.mjs';
import { SECONDS } from './lib/service.mjs';
import { benchStores } from './lib/stores.mjs';

const SCENARIOS = [latency, drain, drainHec, drainSyslog, burst, nohook, fairness];

function selectedScenarios() {
  const keys = (process.env.BENCH_SCENARIOS ?? SCENARIOS.map((s) => s.key).join(',')).split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = keys.filter((k) => !SCENARIOS.some((s) => s.key === k));
  if (unknown.length) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')} (known: ${SCENARIOS.map((s) => s.key).join(', ')})`);
  return SCENARIOS.filter((s) => keys.includes(s.key));
}

export async function runDelivery() {
  const scenarios = selectedScenarios();
  await withReceiver(async (certs, receiver) => {
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
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const only = process.env.BENCH_ONLY;
  if (only && only !== 'delivery') console.log(`BENCH_ONLY=${only}: no delivery scenarios`);
  else await runDelivery();
}
