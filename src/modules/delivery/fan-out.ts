import { type Kysely, type RawBuilder, type Transaction, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import { type Subscription, subscriptionsOf } from './subscriptions.js';

/** NOTIFY channel that wakes the delivery workers when jobs are committed. */
export const JOBS_CHANNEL = 'webhook_jobs';

type Db = Transaction<Database> | Kysely<Database>;

/** An event ready to queue: `payload` is its envelope, serialised once. */
export interface QueuedEvent {
  tenantId: string;
  id: string;
  eventType: string;
  /** Called only for events some webhook wants: nobody pays for the bytes of the others. */
  payload: () => string;
}

/** The rows queuing some events write: one message per wanted event, one job per (event, webhook). */
export interface FanOutRows {
  messages: { tenantIds: string[]; ids: string[]; types: string[]; payloads: string[] };
  jobs: { tenantIds: string[]; webhookIds: string[]; eventIds: string[]; types: string[] };
}

/**
 * Queues `events` (of any tenants) for their tenant's webhooks that subscribe to them, inside
 * the emitting transaction, in one statement that also wakes the workers at commit. An event no
 * active webhook wants leaves nothing behind.
 */
export async function fanOut(tx: Db, events: readonly QueuedEvent[], now: Date): Promise<void> {
  if (events.length === 0) return;
  const subscriptions = await subscriptionsOf(tx, [...new Set(events.map((event) => event.tenantId))].sort());
  const rows = planFanOut(events, subscriptions);
  if (!rows) return;
  await sql`with ${fanOutInserts(rows, now)} select pg_notify(${JOBS_CHANNEL}, '')`.execute(tx);
}

/**
 * The rows of `events` for the active `subscriptions` (read under the tenants' subscription
 * locks in the same transaction); undefined when no webhook wants any of them.
 */
export function planFanOut(
  events: readonly QueuedEvent[], subscriptions: ReadonlyMap<string, readonly Subscription[]>,
): FanOutRows | undefined {
  const rows: FanOutRows = {
    messages: { tenantIds: [], ids: [], types: [], payloads: [] },
    jobs: { tenantIds: [], webhookIds: [], eventIds: [], types: [] },
  };
  for (const event of events) {
    const wanting = subscriptions.get(event.tenantId)?.filter((s) => s.events.includes(event.eventType)) ?? [];
    if (wanting.length === 0) continue;
    rows.messages.tenantIds.push(event.tenantId);
    rows.messages.ids.push(event.id);
    rows.messages.types.push(event.eventType);
    rows.messages.payloads.push(event.payload());
    for (const subscription of wanting) {
      rows.jobs.tenantIds.push(event.tenantId);
      rows.jobs.webhookIds.push(subscription.webhook_id);
      rows.jobs.eventIds.push(event.id);
      rows.jobs.types.push(event.eventType);
    }
  }
  return rows.jobs.eventIds.length > 0 ? rows : undefined;
}

/** The two inserts of `rows`, as common table expressions to put in a statement's WITH. */
export function fanOutInserts({ messages, jobs }: FanOutRows, now: Date): RawBuilder<unknown> {
  return sql`
    queued_messages as (
      insert into webhook_messages (tenant_id, id, event_type, payload, created_at)
      select m.tenant_id, m.id, m.event_type, m.payload, ${now}
      from unnest(${messages.tenantIds}::uuid[], ${messages.ids}::text[], ${messages.types}::text[], ${messages.payloads}::text[])
        as m(tenant_id, id, event_type, payload)
    ),
    queued_jobs as (
      insert into webhook_jobs (tenant_id, webhook_id, event_id, event_type, attempt, run_at, created_at)
      select j.tenant_id, j.webhook_id, j.event_id, j.event_type, 1, ${now}, ${now}
      from unnest(${jobs.tenantIds}::uuid[], ${jobs.webhookIds}::text[], ${jobs.eventIds}::text[], ${jobs.types}::text[])
        with ordinality as j(tenant_id, webhook_id, event_id, event_type, n)
      order by j.n
    )`;
}

/** Wakes the delivery workers of every process (for jobs committed without a NOTIFY of their own). */
export async function wakeWorkers(db: Db): Promise<void> {
  await sql`select pg_notify(${JOBS_CHANNEL}, '')`.execute(db);
}
