// Scenario 1: single creates paced at BENCH_LATENCY_RATE/s for BENCH_SECONDS to a tenant with one
// interaction.created webhook; each 201 is matched with the receiver's receipt of that interaction.
import { createWebhook, matchReceipts, perSecond, warmUp, withFreshStore, withService } from './delivery-common.mjs';
import { pacedCreates } from './load.mjs';
import { percentile } from './report.mjs';
import { ADMIN, SECONDS, apiKey, login } from './service.mjs';

export const latency = {
  key: 'latency',
  title: (sizes) => `1 latency ${sizes.latencyRate}/s`,
  async run(ctx) {
    const { latencyRate: rate, budgetMs } = ctx.sizes;
    const count = Math.round(rate * SECONDS);
    const path = `${ctx.prefix}/latency`;
    const outcome = await withFreshStore(ctx, (store) => withService(ctx, store, {}, async ({ base }) => {
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
    const { run, latencies, matched, first, last } = outcome;
    const limits = await ctx.limits();
    const all = matched === run.created.length;
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    const createRate = perSecond(run.created.length, run.firstSentAt, run.lastAnswerAt);
    ctx.add({ name: 'creates/s (201)', value: createRate, limit: rate, limitIs: 'offered' });
    ctx.add({ name: 'p50 201->receipt ms', value: p50, limit: limits.floorP50, limitIs: 'receiver round trip p50',
      target: { op: '<=', value: ctx.targets.latencyP50 }, reached: Number.isFinite(p50) });
    ctx.add({ name: 'p99 201->receipt ms', value: p99, limit: limits.floorP99, limitIs: 'receiver round trip p99',
      target: ctx.targets.latencyP99 ? { op: '<=', value: ctx.targets.latencyP99 } : undefined, reached: Number.isFinite(p99) });
    ctx.add({ name: 'deliveries/s', value: perSecond(matched, first, last), limit: createRate, limitIs: 'creates/s', reached: all });
    ctx.add({ name: 'interactions received', value: matched, limit: run.created.length, limitIs: 'created',
      target: { op: '==', value: run.created.length }, reached: all });
    if (run.errors) ctx.note(`latency: ${run.errors} creates failed ${JSON.stringify(run.failures)}`);
    if (run.skipped) ctx.note(`latency: ${run.skipped} of ${count} creates not sent (256 already waiting for an answer)`);
    if (outcome.duplicates || outcome.badSignatures) ctx.note(`latency: ${outcome.duplicates} duplicate deliveries, ${outcome.badSignatures} bad signatures`);
    if (!all) ctx.note(`latency: not reached, ${run.created.length - matched} of ${run.created.length} not delivered within the budget`);
  },
};
