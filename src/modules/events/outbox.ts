import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import { prefixedId } from '../../lib/ids.js';
import { fanOut } from '../delivery/fan-out.js';
import type { EventType } from './catalog.js';

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

/**
 * Emits an event inside the caller's transaction: it is queued for the webhooks that want it, so
 * it exists exactly when the change that caused it is committed, and the workers wake at commit.
 */
export async function emit(
  tx: Transaction<Database> | Kysely<Database>,
  tenantId: string,
  eventType: EventType,
  data: unknown,
  now: Date,
): Promise<EventEnvelope> {
  const [envelope] = await emitMany(tx, tenantId, [{ eventType, data }], now);
  return envelope!;
}

/** Many events in one statement (a batch of interactions emits hundreds). */
export async function emitMany(
  tx: Transaction<Database> | Kysely<Database>,
  tenantId: string,
  events: readonly EmitInput[],
  now: Date,
): Promise<EventEnvelope[]> {
  const envelopes = events.map(
    ({ eventType, data }): EventEnvelope => ({
      id: prefixedId('evt', now.getTime()),
      timestamp: now.toISOString(),
      event_type: eventType,
      tenant_id: tenantId,
      data,
    }),
  );
  await fanOut(tx, tenantId, envelopes.map((envelope) => ({
    id: envelope.id,
    eventType: envelope.event_type,
    payload: () => JSON.stringify(envelope),
  })), now);
  return envelopes;
}
