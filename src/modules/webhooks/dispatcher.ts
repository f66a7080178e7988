import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import type { EventEnvelope } from '../events/outbox.js';
import { enqueueJobs, type NewJob } from './delivery-queue.js';

interface OutboxRow {
  tenant_id: string;
  id: string;
  event_type: string;
  data: unknown;
  occurred_at: Date;
}

/**
 * Moves a batch of committed events from the outbox into delivery jobs, in one transaction:
 * claim (FOR UPDATE SKIP LOCKED) and mark dispatched, then fan out to each active webhook of the
 * tenant subscribed to the type and active since no later than the event (created or re-enabled
 * before it). A crash rolls all of it back, so an event is fanned out exactly once. Returns how
 * many events were taken.
 */
export async function dispatchEvents(db: Kysely<Database>, now: Date, limit: number, firstDelayMs: number): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const claimed = await sql<OutboxRow>`
      update outbox_events set dispatched_at = ${now}, lease_until = null
      where (tenant_id, id) in (
        select tenant_id, id from outbox_events where dispatched_at is null
        order by occurred_at, id limit ${limit}
        for update skip locked)
      returning tenant_id, id, event_type, data, occurred_at`.execute(tx);
    const events = claimed.rows.sort((a, b) => a.occurred_at.getTime() - b.occurred_at.getTime() || a.id.localeCompare(b.id));
    if (events.length === 0) return 0;

    const tenantIds = [...new Set(events.map((e) => e.tenant_id))];
    const webhooks = await tx
      .selectFrom('webhooks')
      .select(['tenant_id', 'id', 'events', 'active_since'])
      .where('tenant_id', 'in', tenantIds)
      .where('active', '=', true)
      .execute();

    const jobs: NewJob[] = [];
    for (const event of events) {
      const subscribers = webhooks.filter((w) =>
        w.tenant_id === event.tenant_id && w.active_since <= event.occurred_at && w.events.includes(event.event_type));
      if (subscribers.length === 0) continue;
      const payload = serializeEnvelope(event);
      for (const webhook of subscribers) {
        jobs.push({ tenantId: event.tenant_id, webhookId: webhook.id, eventId: event.id, eventType: event.event_type, payload });
      }
    }
    await enqueueJobs(tx, jobs, now, new Date(now.getTime() + firstDelayMs));
    return events.length;
  });
}

/** The envelope's bytes, made once per event: every webhook and every attempt sends exactly these. */
function serializeEnvelope(event: OutboxRow): string {
  const envelope: EventEnvelope = {
    id: event.id,
    timestamp: event.occurred_at.toISOString(),
    event_type: event.event_type as EventEnvelope['event_type'],
    tenant_id: event.tenant_id,
    data: event.data,
  };
  return JSON.stringify(envelope);
}
