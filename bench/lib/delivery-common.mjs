// What the delivery scenarios share: the service's environment, fresh stores, webhooks, latency matching.
import { pacedCreates } from './load.mjs';
import { api, startService } from './service.mjs';

/** Service variables for deliveries to the bench receiver; WEBHOOK_* set around the bench pass through. */
export function deliveryEnv(ctx, store, extra = {}) {
  const passed = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('WEBHOOK_')));
  return {
    ...passed, WEBHOOK_CA_FILE: ctx.certs.caFile, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...store.env, ...extra,
  };
}

/** Runs `fn(store)` on a fresh store of the section's kind, then drops it. */
export async function withFreshStore(ctx, fn) {
  const store = await ctx.freshStore();
  try {
    return await fn(store);
  } finally {
    await store.dispose();
  }
}

/** Runs `fn(service)` with the service started on `store`, then stops it (SIGTERM, waits for the exit). */
export async function withService(ctx, store, extra, fn) {
  const service = await startService(deliveryEnv(ctx, store, extra));
  try {
    return await fn(service);
  } finally {
    const { code, signal } = await service.stop();
    if (code !== 0) ctx.note(`service exit: code ${code}, signal ${signal}`);
  }
}

/** Registers a webhook for `events` at the receiver's `path` and gives the receiver its signing secret. */
export async function createWebhook(base, token, receiver, path, events = ['interaction.created']) {
  const webhook = await api(base, token, 'POST', '/api/v1/webhooks', { url: receiver.url(path), events });
  if (!webhook.signing_secret) throw new Error('POST /webhooks answered without signing_secret');
  await receiver.setSecret(path, webhook.signing_secret);
  return webhook;
}

/**
 * Matches 201s (`[{ id, at }]`) with the receiver's first receipt of each interaction (`{ id: time }`):
 * `latencies` in ms (Infinity when none arrived), `matched`, and the first and last of those receipts.
 */
export function matchReceipts(created, receiptsById) {
  const latencies = [];
  let matched = 0;
  let first = Infinity;
  let last = -Infinity;
  for (const { id, at } of created) {
    const receivedAt = receiptsById[id];
    if (receivedAt === undefined) {
      latencies.push(Infinity);
      continue;
    }
    matched += 1;
    latencies.push(receivedAt - at);
    first = Math.min(first, receivedAt);
    last = Math.max(last, receivedAt);
  }
  return { latencies, matched, first, last };
}

/** Events per second between the first and the last of `count` events: (count - 1) / span. */
export const perSecond = (count, firstMs, lastMs) => (count > 1 && lastMs > firstMs ? ((count - 1) * 1000) / (lastMs - firstMs) : NaN);

/**
 * A few paced creates, waited for, before measuring latency: the service's connections to the store and
 * the receiver, its caches and the JIT are warm. Returns how many interactions `path` has received so far.
 */
export async function warmUp(ctx, base, key, path, count = 20) {
  const run = await pacedCreates({ base, key, rate: 20, count });
  const { summary } = await ctx.receiver.waitFor(path, (s) => s.distinct_interactions >= run.created.length, ctx.sizes.budgetMs);
  return summary.distinct_interactions;
}
