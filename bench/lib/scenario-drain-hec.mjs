// Scenario drain-hec: BENCH_HEC_EVENTS interaction.created events queued for one splunk_hec webhook while no
// worker runs (SERVE_WORKERS=false), then the service restarted with its workers; the drain rate in events/s is
// (N - 1) / (last receipt - first receipt), beside the receiver's HEC ceiling measured in the same run (a plain
// client pushing requests of 100 events at it). The second half's rate is the drain's once the restart's own work
// (counts folded, tables analysed after the queueing) is behind it.
import { batchIngest } from './load.mjs';
import { perSecond, withFreshStore, withService } from './delivery-common.mjs';
import { secondHalfRate } from './drain-rate.mjs';
import { HEC_EVENTS_PER_REQUEST, measureHecCeiling } from './receiver-limits.mjs';
import { ADMIN, SECONDS, api, apiKey, login, nowMs, sleep } from './service.mjs';

export const drainHec = {
  key: 'drain-hec',
  title: (sizes) => `2b drain ${sizes.hecEvents} to a HEC`,
  async run(ctx) {
    const { hecEvents: total, budgetMs, ingestBudgetMs } = ctx.sizes;
    const path = `${ctx.prefix}/hec/services/collector/event`;
    const token = `bench-${Date.now()}`;
    const outcome = await withFreshStore(ctx, async (store) => {
      const queued = await withService(ctx, store, { SERVE_WORKERS: 'false' }, async ({ base }) => {
        const admin = await login(base, ADMIN);
        const key = await apiKey(base, admin);
        await api(base, admin, 'POST', '/api/v1/webhooks', {
          url: ctx.receiver.url(path), format: 'splunk_hec', auth_token: token, events: ['interaction.created'],
        });
        await ctx.receiver.setSecret(path, token);
        ctx.log(`queueing ${total} events with SERVE_WORKERS=false`);
        const ingest = await batchIngest({ base, key, total, budgetMs: ingestBudgetMs });
        await sleep(1500); // a worker that should not be running would have started by now
        return { ingest, deliveredEarly: (await ctx.receiver.stats(path)).accepted };
      });
      if (!queued.ingest.reached) throw new Error(`ingest stopped at ${queued.ingest.stored} of ${total} (budget)`);
      if (queued.deliveredEarly > 0) ctx.note(`drain-hec: ${queued.deliveredEarly} events were delivered before the restart`);
      return withService(ctx, store, {}, async ({ readyAt }) => {
        ctx.log(`restarted with workers; waiting for ${total} HEC events (budget ${budgetMs / 1000} s)`);
        const { summary, reached } = await ctx.receiver.waitFor(path, (s) => s.distinct_interactions >= total, budgetMs);
        const endedAt = nowMs();
        const { interactions } = await ctx.receiver.receipts(path);
        return { ...queued, summary, reached, readyAt, endedAt, secondHalf: secondHalfRate(Object.values(interactions)) };
      });
    });
    const { summary, reached, readyAt, secondHalf } = outcome;
    const ceiling = await measureHecCeiling(ctx.receiver, ctx.prefix);
    ctx.note(`HEC receiver ceiling ${Math.round(ceiling.eventsPerSecond)} events/s (${Math.round(ceiling.requestsPerSecond)} requests/s of `
      + `${HEC_EVENTS_PER_REQUEST} events, ${ceiling.bodyBytes} bytes each, autocannon, 16 connections, ${SECONDS} s, ${ceiling.errors} errors)`);
    const rate = perSecond(summary.distinct_interactions, summary.first, summary.last);
    const requests = summary.requests;
    ctx.add({ name: 'HEC events/s', value: rate, limit: ceiling.eventsPerSecond, limitIs: 'receiver HEC ceiling',
      target: { op: '>=', value: ctx.targets.hecRate }, reached });
    ctx.add({ name: 'HEC events/s, second half', value: secondHalf, limit: ceiling.eventsPerSecond, limitIs: 'receiver HEC ceiling',
      target: { op: '>=', value: ctx.targets.hecRate }, reached });
    ctx.add({ name: 'events per request', value: summary.accepted / Math.max(1, requests), limit: HEC_EVENTS_PER_REQUEST, limitIs: 'batch maximum' });
    ctx.add({ name: 'ready -> last receipt s', value: ((reached ? summary.last : outcome.endedAt) - readyAt) / 1000,
      limit: total / ceiling.eventsPerSecond, limitIs: 'N / ceiling', reached });
    ctx.add({ name: 'interactions received', value: summary.distinct_interactions, limit: total, limitIs: 'queued', target: { op: '==', value: total }, reached });
    ctx.add({ name: 'duplicates', value: summary.duplicates, target: { op: '==', value: 0 } });
    if (summary.bad_signatures) ctx.note(`drain-hec: ${summary.bad_signatures} requests refused for their token`);
    if (!reached) ctx.note(`drain-hec: not reached, ${summary.distinct_interactions} of ${total} delivered within the budget`);
  },
};
