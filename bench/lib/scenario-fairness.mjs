// Scenario 5: tenant A has a webhook on the receiver's slow path (1 s answers) and BENCH_FAIR_ROWS queued
// interaction.created events; tenant B, with a webhook on a fast path, then sends BENCH_FAIR_CREATES single
// creates at 20/s. B's 201->receipt latency is compared with B alone (a quarter as many creates, before A's
// backlog), and A's delivery rate meanwhile is reported. Both tenants are made with the CLI before the
// service first starts (so the bootstrap admin is not created: the store is not empty).
import { batchIngest, pacedCreates } from './load.mjs';
import { createWebhook, matchReceipts, warmUp, withFreshStore, withService } from './delivery-common.mjs';
import { percentile } from './report.mjs';
import { apiKey, cli, login } from './service.mjs';

const B_RATE = 20;
const PASSWORD = 'Bench-Password-42';

async function createTenant(env, name, email) {
  const out = JSON.parse(await cli(env, 'tenant', 'create', '--name', name, '--admin-email', email, '--admin-password', PASSWORD));
  return { email, password: PASSWORD, tenant_id: out.tenant_id };
}

/** B's creates at 20/s, waited for; `{ latencies, matched, created, firstSentAt, lastReceipt, reached }`. */
async function paceB(ctx, base, key, path, count, offset) {
  const before = (await ctx.receiver.stats(path)).distinct_interactions;
  const run = await pacedCreates({ base, key, rate: B_RATE, count, offset });
  const { reached } = await ctx.receiver.waitFor(path, (s) => s.distinct_interactions >= before + run.created.length, ctx.sizes.budgetMs);
  const { interactions } = await ctx.receiver.receipts(path);
  const matched = matchReceipts(run.created, interactions);
  return { ...matched, created: run.created.length, failures: run.failures, firstSentAt: run.firstSentAt, lastReceipt: matched.last, reached };
}

export const fairness = {
  key: 'fairness',
  title: (sizes) => `5 fairness ${sizes.fairRows}`,
  async run(ctx) {
    const { fairRows, fairCreates, budgetMs, ingestBudgetMs } = ctx.sizes;
    const pathA = `/slow${ctx.prefix}/fair-a`;
    const pathB = `${ctx.prefix}/fair-b`;
    const outcome = await withFreshStore(ctx, async (store) => {
      const adminA = await createTenant(store.env, 'A', 'a@bench.test');
      const adminB = await createTenant(store.env, 'B', 'b@bench.test');
      return withService(ctx, store, {}, async ({ base }) => {
        const [tokenA, tokenB] = [await login(base, adminA), await login(base, adminB)];
        const [keyA, keyB] = [await apiKey(base, tokenA), await apiKey(base, tokenB)];
        await createWebhook(base, tokenA, ctx.receiver, pathA);
        await createWebhook(base, tokenB, ctx.receiver, pathB);
        await warmUp(ctx, base, keyB, pathB);
        const alone = Math.max(20, Math.round(fairCreates / 4));
        ctx.log(`B alone: ${alone} creates at ${B_RATE}/s`);
        const baseline = await paceB(ctx, base, keyB, pathB, alone, 0);
        ctx.log(`A: ingesting ${fairRows} rows for the slow receiver`);
        const ingest = await batchIngest({ base, key: keyA, total: fairRows, concurrency: 4, budgetMs: ingestBudgetMs });
        const { reached: delivering } = await ctx.receiver.waitFor(pathA, (s) => s.accepted > 0, budgetMs);
        if (!delivering) ctx.note('fairness: A received nothing within the budget before B started');
        ctx.log(`B beside A's backlog: ${fairCreates} creates at ${B_RATE}/s`);
        const beside = await paceB(ctx, base, keyB, pathB, fairCreates, alone);
        const windowEnd = beside.reached ? beside.lastReceipt : performance.timeOrigin + performance.now();
        const a = await ctx.receiver.stats(pathA, { from: String(beside.firstSentAt), to: String(windowEnd) });
        return { baseline, beside, ingest, a, aRate: (a.window_count * 1000) / (windowEnd - beside.firstSentAt) };
      });
    });
    const { baseline, beside, ingest, a } = outcome;
    const bP50 = percentile(beside.latencies, 0.5);
    const bP99 = percentile(beside.latencies, 0.99);
    ctx.add({ name: 'B p50 201->receipt ms', value: bP50, limit: percentile(baseline.latencies, 0.5), limitIs: 'B alone p50', reached: Number.isFinite(bP50) });
    ctx.add({ name: 'B p99 201->receipt ms', value: bP99, limit: percentile(baseline.latencies, 0.99), limitIs: 'B alone p99',
      target: { op: '<=', value: ctx.targets.fairP99 }, reached: Number.isFinite(bP99) });
    ctx.add({ name: 'A deliveries/s meanwhile', value: outcome.aRate });
    ctx.note(`fairness: A ingested ${ingest.stored} rows in ${ingest.seconds.toFixed(1)} s; A received ${a.accepted} in all (${a.duplicates} duplicates); `
      + `B received ${beside.matched} of ${beside.created} (alone: ${baseline.matched} of ${baseline.created})`);
    for (const [what, run] of [['alone', baseline], ['beside A', beside]]) {
      if (Object.keys(run.failures).length) ctx.note(`fairness: B's creates ${what} that failed: ${JSON.stringify(run.failures)}`);
    }
    if (!ingest.reached) ctx.note(`fairness: A's ingest stopped at ${ingest.stored} of ${fairRows} rows (budget)`);
    if (!beside.reached || !baseline.reached) ctx.note('fairness: not reached, some of B\'s events were not delivered within the budget');
  },
};
