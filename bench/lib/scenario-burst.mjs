// Scenario 3: BENCH_BURST_CREATES single creates from autocannon on BENCH_BURST_CONNECTIONS connections to a
// tenant with one interaction.created webhook; the gap is the last receipt minus the last 201.
import { createWebhook, matchReceipts, perSecond, withFreshStore, withService } from './delivery-common.mjs';
import { ADMIN, apiKey, cannon, interaction, login, nowMs } from './service.mjs';

export const burst = {
  key: 'burst',
  title: (sizes) => `3 burst ${sizes.burstCreates} x${sizes.burstConnections}`,
  async run(ctx) {
    const { burstCreates: amount, burstConnections: connections, budgetMs } = ctx.sizes;
    const path = `${ctx.prefix}/burst`;
    const outcome = await withFreshStore(ctx, (store) => withService(ctx, store, {}, async ({ base }) => {
      const token = await login(base, ADMIN);
      const key = await apiKey(base, token);
      await createWebhook(base, token, ctx.receiver, path);
      ctx.log(`${amount} single creates on ${connections} connections`);
      const created = [];
      let n = 0;
      const startedAt = nowMs();
      const result = await cannon({
        url: `${base}/api/v1/interactions`, amount, connections, timeout: 120,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        requests: [{
          method: 'POST',
          setupRequest: (request) => ({ ...request, body: JSON.stringify(interaction(n++)) }),
          onResponse: (status, body) => {
            if (status === 201) created.push({ id: JSON.parse(body).id, at: nowMs() });
          },
        }],
      });
      ctx.log(`${created.length} created; waiting for their deliveries (budget ${budgetMs / 1000} s)`);
      const { reached } = await ctx.receiver.waitFor(path, (s) => s.distinct_interactions >= created.length, budgetMs);
      const { interactions, duplicates } = await ctx.receiver.receipts(path);
      return { created, startedAt, reached, duplicates, errors: result.errors + result.non2xx, timeouts: result.timeouts, endedAt: nowMs(), ...matchReceipts(created, interactions) };
    }));
    const { created, matched, first, last, reached } = outcome;
    const limits = await ctx.limits();
    const last201 = created.reduce((max, c) => Math.max(max, c.at), -Infinity);
    const gap = ((reached ? last : outcome.endedAt) - last201) / 1000;
    ctx.add({ name: 'last 201 -> last receipt s', value: gap, target: { op: '<=', value: ctx.targets.burstGapSeconds }, reached });
    ctx.add({ name: 'creates/s (201)', value: perSecond(created.length, outcome.startedAt, last201) });
    ctx.add({ name: 'deliveries/s', value: perSecond(matched, first, last), limit: limits.ceiling, limitIs: 'receiver ceiling', reached });
    ctx.add({ name: 'interactions received', value: matched, limit: created.length, limitIs: 'created', target: { op: '==', value: created.length }, reached });
    if (outcome.errors) ctx.note(`burst: ${outcome.errors} creates failed (${outcome.timeouts} timeouts of 120 s)`);
    if (outcome.duplicates) ctx.note(`burst: ${outcome.duplicates} duplicate deliveries`);
    if (!reached) ctx.note(`burst: not reached, ${created.length - matched} of ${created.length} not delivered within the budget`);
  },
};
