// Scenario drain-syslog: BENCH_SYSLOG_EVENTS interaction.created events queued for one syslog webhook (CEF in
// RFC 5424 messages, octet-counted frames on one TLS connection) while no worker runs (SERVE_WORKERS=false), then the
// service restarted with its workers; the drain rate in events/s is (N - 1) / (last receipt - first receipt), beside
// the syslog receiver's ceiling measured in the same run (a plain client writing frames on one connection). The
// second half's rate is the drain's once the restart's own work (counts folded, tables analysed) is behind it.
import { batchIngest } from './load.mjs';
import { perSecond, withFreshStore, withService } from './delivery-common.mjs';
import { SYSLOG_FRAMES_PER_WRITE, measureSyslogCeiling } from './syslog-ceiling.mjs';
import { startSyslogReceiver } from './syslog-receiver-client.mjs';
import { ADMIN, SECONDS, api, apiKey, login, nowMs, sleep } from './service.mjs';

export const drainSyslog = {
  key: 'drain-syslog',
  title: (sizes) => `2c drain ${sizes.syslogEvents} to syslog`,
  async run(ctx) {
    const receiver = await startSyslogReceiver(ctx.certs);
    try {
      await drainTo(ctx, receiver);
    } finally {
      await receiver.close();
    }
  },
};

async function drainTo(ctx, receiver) {
  const { syslogEvents: total, budgetMs, ingestBudgetMs } = ctx.sizes;
  const outcome = await withFreshStore(ctx, async (store) => {
    const queued = await withService(ctx, store, { SERVE_WORKERS: 'false' }, async ({ base }) => {
      const admin = await login(base, ADMIN);
      const key = await apiKey(base, admin);
      await api(base, admin, 'POST', '/api/v1/webhooks', { url: receiver.url, format: 'syslog', events: ['interaction.created'] });
      ctx.log(`queueing ${total} events with SERVE_WORKERS=false`);
      const ingest = await batchIngest({ base, key, total, budgetMs: ingestBudgetMs });
      await sleep(1500); // a worker that should not be running would have started by now
      return { ingest, deliveredEarly: (await receiver.stats()).accepted };
    });
    if (!queued.ingest.reached) throw new Error(`ingest stopped at ${queued.ingest.stored} of ${total} (budget)`);
    if (queued.deliveredEarly > 0) ctx.note(`drain-syslog: ${queued.deliveredEarly} events were delivered before the restart`);
    return withService(ctx, store, {}, async ({ readyAt }) => {
      ctx.log(`restarted with workers; waiting for ${total} syslog messages (budget ${budgetMs / 1000} s)`);
      const { summary, reached } = await receiver.waitFor((s) => s.distinct_interactions >= total, budgetMs);
      return { ...queued, summary, reached, readyAt, endedAt: nowMs() };
    });
  });
  const { summary, reached, readyAt } = outcome;
  const ceiling = await measureSyslogCeiling(receiver, ctx.certs.caFile);
  ctx.note(`syslog receiver ceiling ${Math.round(ceiling.messagesPerSecond)} events/s (one TLS connection, writes of `
    + `${SYSLOG_FRAMES_PER_WRITE} frames of a ${ceiling.messageBytes}-byte received message, ${SECONDS} s, ${ceiling.written} written)`);
  const rate = perSecond(summary.distinct_interactions, summary.first, summary.last);
  ctx.add({ name: 'syslog events/s', value: rate, limit: ceiling.messagesPerSecond, limitIs: 'syslog receiver ceiling',
    target: { op: '>=', value: ctx.targets.syslogRate }, reached });
  ctx.add({ name: 'syslog events/s, second half', value: summary.second_half_rate, limit: ceiling.messagesPerSecond,
    limitIs: 'syslog receiver ceiling', target: { op: '>=', value: ctx.targets.syslogRate }, reached });
  ctx.add({ name: 'ready -> last receipt s', value: ((reached ? summary.last : outcome.endedAt) - readyAt) / 1000,
    limit: total / ceiling.messagesPerSecond, limitIs: 'N / ceiling', reached });
  ctx.add({ name: 'interactions received', value: summary.distinct_interactions, limit: total, limitIs: 'queued', target: { op: '==', value: total }, reached });
  ctx.add({ name: 'duplicates', value: summary.duplicates, target: { op: '==', value: 0 } });
  ctx.add({ name: 'connections', value: summary.connections });
  if (summary.unparsable || summary.bad_frames) {
    ctx.note(`drain-syslog: ${summary.unparsable} messages without an event id, ${summary.bad_frames} bad frames`);
  }
  if (!reached) ctx.note(`drain-syslog: not reached, ${summary.distinct_interactions} of ${total} delivered within the budget`);
}
