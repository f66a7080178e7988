// Scenario 1: single creates paced at BENCH_LATENCY_RATE/s for BENCH_SECONDS to a tenant with one
// interaction.created webhook; each 201 is matched with the receiver's receipt of that interaction.
import { createWebhook, matchReceipts, perSecond, warmUp, withFreshStore, withService } from './delivery-common.mjs';
import { pacedCreates } from './load.mjs';
import { percentile } from './report.mjs';
import { ADMIN, SECONDS, apiKey, login } from './service.mjs';

/**
 * The scenario's measure on a fresh store of `ctx.freshStore()`, the service started with its `env` and `extra`:
 * `{ run, latencies, p50, p99, createRate, matched, all, first, last, duplicates, badSignatures }`.
 */
export async function measureLatency(ctx, extra = {}) {
  const { latencyRate: rate, budgetMs } = ctx.sizes;
  const count = Math.round(rate * SECONDS);
  const path = `${ctx.prefix}/latency`;
  const outcome = await withFreshStore(ctx, (store) => withService(ctx, store, extra, async ({ base }) => {
    const token = await login(base, ADMIN);
    const key = await apiKey(base, token);
    await createWebhook(base, token, ctx.receiver, path);
    const warm = await warmUp(ctx, base, key, path);
    ctx.log(`${count} single creates at ${rate}/s`);
    const run = await pacedCreates({ base, key, rate, count });
    ctx.log(`${run.created.length} created; waiting for their deliveries (budget ${budgetMs / 1000} s)`);
    await ctx.receiver.waitFor(path, (s) => s.distinct_interactions >= warm + run.created.length, budgetMs);
    const { interactions, duplicates, bad_signatures: badSignatures } = await ctx.receiver.receipts(path);
    return { run, duplicates, badSignatures, ...matchReceipts(run.created, interactions) };
  }));
  const { run, latencies, matched } = outcome;
  return {
    ...outcome,
    count,
    all: matched === run.created.length,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    createRate: perSecond(run.created.length, run.firstSentAt, run.lastAnswerAt),
  };
}

/** The notes of a measure that did not go cleanly: failed or skipped creates, duplicates, missing deliveries. */
export function noteLatencyIssues(ctx, label, { run, count, matched, all, duplicates, badSignatures }) {
  if (run.errors) ctx.note(`${label}: ${run.errors} creates failed ${JSON.stringify(run.failures)}`);
  if (run.skipped) ctx.note(`${label}: ${run.skipped} of ${count} creates not sent (256 already waiting for an answer)`);
  if (duplicates || badSignatures) ctx.note(`${label}: ${duplicates} duplicate deliveries, ${badSignatures} bad signatures`);
  if (!all) ctx.note(`${label}: not reached, ${run.created.length - matched} of ${run.created.length} not delivered within the budget`);
}

export const latency = {
  key: 'latency',
  title: (sizes) => `1 latency ${sizes.latencyRate}/s`,
  async run(ctx) {
    const measured = await measureLatency(ctx);
    const { run, p50, p99, createRate, matched, first, last, all } = measured;
    const limits = await ctx.limits();
    ctx.add({ name: 'creates/s (201)', value: createRate, limit: ctx.sizes.latencyRate, limitIs: 'offered' });
    ctx.add({ name: 'p50 201->receipt ms', value: p50, limit: limits.floorP50, limitIs: 'receiver round trip p50',
      target: { op: '<=', value: ctx.targets.latencyP50 }, reached: Number.isFinite(p50) });
    ctx.add({ name: 'p99 201->receipt ms', value: p99, limit: limits.floorP99, limitIs: 'receiver round trip p99',
      target: ctx.targets.latencyP99 ? { op: '<=', value: ctx.targets.latencyP99 } : undefined, reached: Number.isFinite(p99) });
    ctx.add({ name: 'deliveries/s', value: perSecond(matched, first, last), limit: createRate, limitIs: 'creates/s', reached: all });
    ctx.add({ name: 'interactions received', value: matched, limit: run.created.length, limitIs: 'created',
      target: { op: '==', value: run.created.length }, reached: all });
    noteLatencyIssues(ctx, 'latency', measured);
  },
};
