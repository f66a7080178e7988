// Scenario 2: BENCH_DRAIN_EVENTS interaction.created events queued for one webhook while no worker runs
// (SERVE_WORKERS=false), then the service restarted with its workers; the drain rate is
// (N - 1) / (last receipt - first receipt), beside the receiver's ceiling.
import { batchIngest } from './load.mjs';
import { createWebhook, perSecond, withFreshStore, withService } from './delivery-common.mjs';
import { ADMIN, apiKey, login, nowMs, sleep } from './service.mjs';

export const drain = {
  key: 'drain',
  title: (sizes) => `2 drain ${sizes.drainEvents}`,
  async run(ctx) {
    const { drainEvents: total, budgetMs, ingestBudgetMs } = ctx.sizes;
    const path = `${ctx.prefix}/drain`;
    const outcome = await withFreshStore(ctx, async (store) => {
      const queued = await withService(ctx, store, { SERVE_WORKERS: 'false' }, async ({ base }) => {
        const token = await login(base, ADMIN);
        const key = await apiKey(base, token);
        await createWebhook(base, token, ctx.receiver, path);
        ctx.log(`queueing ${total} events with SERVE_WORKERS=false`);
        const ingest = await batchIngest({ base, key, total, budgetMs: ingestBudgetMs });
        await sleep(1500); // a worker that should not be running would have started by now
        return { ingest, deliveredEarly: (await ctx.receiver.stats(path)).accepted };
      });
      if (!queued.ingest.reached) throw new Error(`ingest stopped at ${queued.ingest.stored} of ${total} (budget)`);
      if (queued.deliveredEarly > 0) {
        ctx.note(`drain: ${queued.deliveredEarly} events were delivered before the restart: SERVE_WORKERS=false is not honoured, so the rate includes the ingest`);
      }
      return withService(ctx, store, {}, async ({ readyAt }) => {
        ctx.log(`restarted with workers; waiting for ${total} deliveries (budget ${budgetMs / 1000} s)`);
        const { summary, reached } = await ctx.receiver.waitFor(path, (s) => s.distinct_interactions >= total, budgetMs);
        return { ...queued, summary, reached, readyAt, endedAt: nowMs() };
      });
    });
    const { summary, reached, readyAt } = outcome;
    const limits = await ctx.limits();
    const rate = perSecond(summary.distinct_interactions, summary.first, summary.last);
    const totalSeconds = ((reached ? summary.last : outcome.endedAt) - readyAt) / 1000;
    ctx.add({ name: 'deliveries/s', value: rate, limit: limits.ceiling, limitIs: 'receiver ceiling',
      target: { op: '>=', value: ctx.targets.drainRate }, reached });
    if (ctx.targets.drainShare) {
      ctx.add({ name: 'deliveries/s / ceiling', value: rate / limits.ceiling, target: { op: '>=', value: ctx.targets.drainShare }, reached });
    }
    ctx.add({ name: 'ready -> last receipt s', value: totalSeconds, limit: total / limits.ceiling, limitIs: 'N / ceiling', reached });
    ctx.add({ name: 'interactions received', value: summary.distinct_interactions, limit: total, limitIs: 'queued', target: { op: '==', value: total }, reached });
    ctx.add({ name: 'duplicates', value: summary.duplicates, target: { op: '==', value: 0 } });
    if (summary.bad_signatures) ctx.note(`drain: ${summary.bad_signatures} deliveries with a bad signature`);
    if (!reached) ctx.note(`drain: not reached, ${summary.distinct_interactions} of ${total} delivered within the budget`);
  },
};
