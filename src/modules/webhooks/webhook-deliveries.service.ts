import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { AppError, notFound } from '../../kernel/errors.js';
import { prefixedId } from '../../kernel/ids.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import { writeAudit } from '../audit/audit.writer.js';
import type { EventType } from '../../platform/outbox/event-types.js';
import type { EventEnvelope } from '../../platform/outbox/outbox.js';
import { recordAttempts } from '../delivery/history.js';
import { requeueEvent } from '../delivery/queue.js';
import type { Transports } from '../delivery/batched-formats.js';
import { renderBodyOrFail, renderContext } from '../delivery/formats/formats.js';
import { sendEvent } from '../delivery/send-event.js';
import type { WebhookFormat } from '../../kernel/vocabulary.js';
import { openWebhookSecrets } from '../delivery/secrets.js';
import { findDelivery, findWebhook, listDeliveries, lockStoredEvent, toDeliveryResponse } from './webhooks.repo.js';

/** The catalog's sample event of a type, with fresh ids, for a tenant at a time: what a test send delivers. */
export type SampleEvent = (eventType: EventType, tenantId: string, now: Date) => EventEnvelope;

export async function deliveryHistory(deps: Deps, ctx: RequestContext, webhookId: string, request: PageRequest) {
  const webhook = await findWebhook(deps.store.db, ctx.tenantId, webhookId);
  if (!webhook) throw notFound('Webhook');
  const { rows, page, total } = await listDeliveries(deps.store.db, ctx.tenantId, webhookId, request);
  return { body: { deliveries: rows.map(toDeliveryResponse), total, next_cursor: page.nextCursor }, page };
}

/**
 * One synchronous attempt with the catalog's sample of the requested type (fresh ids, the
 * attempt's time, the caller's tenant), in the webhook's format, signed like any other. It is
 * recorded in the history but never retried and never counts toward disabling; an inactive
 * webhook can be tested too (to check a receiver before enabling it again).
 */
export async function testWebhook(
  deps: Deps, transports: Transports, sampleEvent: SampleEvent, ctx: RequestContext, webhookId: string, eventType: EventType,
) {
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const stored = await findWebhook(deps.store.db, ctx.tenantId, webhookId);
  if (!stored) throw notFound('Webhook');
  const webhook = openWebhookSecrets(keys, stored);
  const attemptedAt = deps.clock.now();
  const envelope = sampleEvent(eventType, ctx.tenantId, attemptedAt);
  const deliveryId = prefixedId('dlv', attemptedAt.getTime());
  const outcome = await sendEvent(transports, webhook, JSON.stringify(envelope),
    { deliveryId, eventId: envelope.id, eventType, now: attemptedAt }, renderContext(deps.config));
  await recordAttempts(deps.store.db, [{
    tenantId: ctx.tenantId, webhookId, deliveryId, eventId: envelope.id, eventType, attempt: 1, isTest: true,
    format: webhook.format, attemptedAt, outcome,
  }]);
  return {
    delivered: outcome.success,
    status_code: outcome.statusCode,
    response_time_ms: outcome.responseTimeMs,
    timestamp: attemptedAt.toISOString(),
    delivery_id: deliveryId,
    ...(outcome.error === null ? {} : { error: outcome.error }),
  };
}

/**
 * The body a receiver of `format` gets for the catalog's sample of `eventType` (fresh ids, now,
 * the caller's tenant), rendered by the code that renders deliveries: for a batched format, a
 * batch of one event.
 */
export function formatSample(deps: Deps, sampleEvent: SampleEvent, ctx: RequestContext, format: WebhookFormat, eventType: EventType) {
  const envelope = sampleEvent(eventType, ctx.tenantId, deps.clock.now());
  return { format, event_type: eventType, body: renderBodyOrFail(format, JSON.stringify(envelope), renderContext(deps.config)) };
}

/** Queues the event of a past delivery again, now, as a new chain of attempts over the same bytes. */
export async function redeliver(deps: Deps, ctx: RequestContext, webhookId: string, deliveryId: string) {
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const webhook = await findWebhook(tx, ctx.tenantId, webhookId, true);
    if (!webhook) throw notFound('Webhook');
    const delivery = await findDelivery(tx, ctx.tenantId, webhookId, deliveryId);
    if (!delivery) throw notFound('Delivery');
    if (delivery.is_test) {
      throw new AppError('invalid_state', 'A test delivery cannot be redelivered; use the test operation again');
    }
    if (!webhook.active) {
      throw new AppError('invalid_state', 'The webhook is inactive; enable it (PUT with active: true) before redelivering');
    }
    if (!(await lockStoredEvent(tx, ctx.tenantId, delivery.event_id))) throw notFound('Delivery');
    await requeueEvent(tx, { tenantId: ctx.tenantId, webhookId, eventId: delivery.event_id, eventType: delivery.event_type }, now);
    await writeAudit(tx, ctx, {
      action: 'webhook.redelivery_requested', targetType: 'webhook', targetId: webhookId,
      details: { delivery_id: deliveryId, event_id: delivery.event_id, event_type: delivery.event_type },
    }, now);
    return {
      webhook_id: webhookId,
      event_id: delivery.event_id,
      event_type: delivery.event_type,
      redelivery_of: deliveryId,
      queued_at: now.toISOString(),
    };
  });
}
