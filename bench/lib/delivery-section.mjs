// What a run of delivery scenarios shares: their sizes and targets, the HTTPS receiver with its throwaway CA,
// and the context each scenario gets about the store section it runs in.
import { createCertificates } from './certs.mjs';
import { startReceiver } from './receiver-client.mjs';
import { measureReceiverLimits } from './receiver-limits.mjs';
import { figure } from './report.mjs';
import { SECONDS } from './service.mjs';

const size = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};

export const SIZES = {
  latencyRate: size('BENCH_LATENCY_RATE', 200),
  drainEvents: size('BENCH_DRAIN_EVENTS', 10_000),
  hecEvents: size('BENCH_HEC_EVENTS', 20_000),
  syslogEvents: size('BENCH_SYSLOG_EVENTS', 20_000),
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
  both: { burstGapSeconds: 3, nohookCpuPercent: 5, nohookMB: 10, fairP99: 100, hecRate: 10_000, syslogRate: 10_000 },
};

/** Everything a scenario needs about the store section it runs in; `store.prefix` (default `/<kind>`) starts its receiver paths. */
export function sectionContext(store, certs, receiver) {
  const rows = [];
  const notes = [];
  let scenario = '';
  let limits;
  const ctx = {
    kind: store.kind,
    label: store.label,
    prefix: store.prefix ?? `/${store.kind}`,
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

/** Runs `fn(certs, receiver)` with the receiver started on a throwaway CA's certificate, then stops both. */
export async function withReceiver(fn) {
  const certs = createCertificates();
  let receiver;
  try {
    receiver = await startReceiver(certs);
    return await fn(certs, receiver);
  } finally {
    await receiver?.close();
    await certs.dispose();
  }
}
