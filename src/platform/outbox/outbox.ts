import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { prefixedId } from '../../kernel/ids.js';
import { jsonOf } from '../../kernel/json-once.js';
import { fanOut, fanOutInserts, type FanOutRows, planFanOut, type QueuedEvent } from './fan-out.js';
import type { Subscription } from './subscriptions.js';
import type { PayloadSealer } from './sealed-payloads.js';
import type { EventType } from './event-types.js';
import { serviceMetrics } from '../metrics/metrics.js';

/** The body of every webhook delivery. */
export interface EventEnvelope<T = unknown> {
  id: string;
  timestamp: string;
  event_type: EventType;
  tenant_id: string;
  data: T;
}

export interface EmitInput {
  eventType: EventType;
  data: unknown;
}

type Db = Transaction<Database> | Kysely<Database>;

export function toEnvelope(tenantId: string, { eventType, data }: EmitInput, now: Date): EventEnvelope {
  return { id: prefixedId('evt', now.getTime()), timestamp: now.toISOString(), event_type: eventType, tenant_id: tenantId, data };
}

/**
 * Emits an event inside the caller's transaction: it is queued for the webhooks that want it, so
 * it exists exactly when the change that caused it is committed, and the workers wake at commit.
 */
export async function emit(tx: Db, tenantId: string, eventType: EventType, data: unknown, now: Date): Promise<EventEnvelope> {
  const [envelope] = await emitMany(tx, tenantId, [{ eventType, data }], now);
  return envelope!;
}

/** Many events of one tenant in one statement. */
export async function emitMany(tx: Db, tenantId: string, events: readonly EmitInput[], now: Date): Promise<EventEnvelope[]> {
  const envelopes = events.map((event) => toEnvelope(tenantId, event, now));
  await fanOut(tx, toQueuedEvents(envelopes), now);
  // Counted when written: the rare transaction that then rolls back is counted too.
  for (const envelope of envelopes) serviceMetrics.eventsEmitted.inc({ event_type: envelope.event_type });
  return envelopes;
}

export { JOBS_CHANNEL, wakeWorkers } from './fan-out.js';
export { openPayload, type PayloadSealer, sealingPayloads } from './sealed-payloads.js';
export type { FanOutRows };

/**
 * For a writer that queues its events in a statement of its own (the ingest group commit, one
 * statement for every table): the outbox rows of `envelopes` for the tenants' active
 * `subscriptions` (read under their subscription locks in the same transaction), or undefined
 * when no webhook wants any. The statement takes them with `outboxInserts`; `wakeWorkers` after
 * the commit.
 */
export function planEvents(
  envelopes: readonly EventEnvelope[], subscriptions: ReadonlyMap<string, readonly Subscription[]>, seal?: PayloadSealer,
): FanOutRows | undefined {
  return planFanOut(toQueuedEvents(envelopes, seal), subscriptions);
}

/** The outbox inserts of planned rows, as common table expressions for the writer's WITH. */
export const outboxInserts = fanOutInserts;

/**
 * The envelopes as the delivery engine queues them, each `data` serialised once, and encrypted
 * when `seal` is given (as a JSON string: the base64url of a sealed text needs no escaping).
 */
function toQueuedEvents(envelopes: readonly EventEnvelope[], seal?: PayloadSealer): QueuedEvent[] {
  return envelopes.map((envelope) => ({
    tenantId: envelope.tenant_id,
    id: envelope.id,
    eventType: envelope.event_type,
    payload: seal ? () => `"${seal(envelope.tenant_id, envelopeJson(envelope))}"` : () => envelopeJson(envelope),
  }));
}

/**
 * The same bytes as `JSON.stringify(envelope)`, with `data` serialised once whatever the number
 * of envelopes (and the interaction row) that carry it: see `jsonOf`.
 */
function envelopeJson({ id, timestamp, event_type, tenant_id, data }: EventEnvelope): string {
  const dataJson = typeof data === 'object' && data !== null ? jsonOf(data) : JSON.stringify(data);
  return `{"id":${JSON.stringify(id)},"timestamp":"${timestamp}","event_type":"${event_type}",` +
    `"tenant_id":"${tenant_id}","data":${dataJson}}`;
}
