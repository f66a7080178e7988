import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import { prefixedId } from '../../lib/ids.js';
import type { EventType } from './catalog.js';

export const OUTBOX_CHANNEL = 'outbox_events';

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
 * Writes events to the outbox inside the caller's transaction, so they exist exactly when the
 * change that caused them is committed. The NOTIFY is delivered at commit too.
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

/** One multi-row insert for many events (a batch of interactions emits hundreds). */
export async function emitMany(
  tx: Transaction<Database> | Kysely<Database>,
  tenantId: string,
  events: readonly EmitInput[],
  now: Date,
): Promise<EventEnvelope[]> {
  if (events.length === 0) return [];
  const envelopes = events.map(
    ({ eventType, data }): EventEnvelope => ({
      id: prefixedId('evt', now.getTime()),
      timestamp: now.toISOString(),
      event_type: eventType,
      tenant_id: tenantId,
      data,
    }),
  );
  await tx
    .insertInto('outbox_events')
    .values(
      envelopes.map((e) => ({
        tenant_id: tenantId,
        id: e.id,
        event_type: e.event_type,
        data: JSON.stringify(e.data),
        occurred_at: now,
      })),
    )
    .execute();
  await sql`select pg_notify(${OUTBOX_CHANNEL}, '')`.execute(tx);
  return envelopes;
}
