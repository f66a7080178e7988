import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import { subscriptionsOf } from './subscriptions.js';

/** NOTIFY channel that wakes the delivery workers when jobs are committed. */
export const JOBS_CHANNEL = 'webhook_jobs';

/** An event ready to queue: `payload` is its envelope, serialised once. */
export interface QueuedEvent {
  tenantId: string;
  id: string;
  eventType: string;
  /** Called only for events some webhook wants: nobody pays for the bytes of the others. */
  payload: () => string;
}

/**
 * Queues `events` (of any tenants) for their tenant's webhooks that subscribe to them, inside
 * the emitting transaction: one message per wanted event and one job per (event, webhook), in one
 * statement that also wakes the workers at commit. An event no active webhook wants leaves nothing.
 */
export async function fanOut(
  tx: Transaction<Database> | Kysely<Database>, events: readonly QueuedEvent[], now: Date,
): Promise<void> {
  if (events.length === 0) return;
  const tenantIds = [...new Set(events.map((event) => event.tenantId))].sort();
  const subscriptions = await subscriptionsOf(tx, tenantIds);
  if (subscriptions.size === 0) return;
  const messages = { tenantIds: [] as string[], ids: [] as string[], types: [] as string[], payloads: [] as string[] };
  const jobs = { tenantIds: [] as string[], webhookIds: [] as string[], eventIds: [] as string[], types: [] as string[] };
  for (const event of events) {
    const wanting = subscriptions.get(event.tenantId)?.filter((s) => s.events.includes(event.eventType)) ?? [];
    if (wanting.length === 0) continue;
    messages.tenantIds.push(event.tenantId);
    messages.ids.push(event.id);
    messages.types.push(event.eventType);
    messages.payloads.push(event.payload());
    for (const subscription of wanting) {
      jobs.tenantIds.push(event.tenantId);
      jobs.webhookIds.push(subscription.webhook_id);
      jobs.eventIds.push(event.id);
      jobs.types.push(event.eventType);
    }
  }
  if (jobs.eventIds.length === 0) return;
  await sql`
    with messages as (
      insert into webhook_messages (tenant_id, id, event_type, payload, created_at)
      select m.tenant_id, m.id, m.event_type, m.payload, ${now}
      from unnest(${messages.tenantIds}::uuid[], ${messages.ids}::text[], ${messages.types}::text[], ${messages.payloads}::text[])
        as m(tenant_id, id, event_type, payload)
    ),
    jobs as (
      insert into webhook_jobs (tenant_id, webhook_id, event_id, event_type, attempt, run_at, created_at)
      select j.tenant_id, j.webhook_id, j.event_id, j.event_type, 1, ${now}, ${now}
      from unnest(${jobs.tenantIds}::uuid[], ${jobs.webhookIds}::text[], ${jobs.eventIds}::text[], ${jobs.types}::text[])
        with ordinality as j(tenant_id, webhook_id, event_id, event_type, n)
      order by j.n
    )
    select pg_notify(${JOBS_CHANNEL}, '')`.execute(tx);
}
