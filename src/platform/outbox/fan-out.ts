import { type Kysely, type RawBuilder, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { type Subscription, subscriptionsOf } from './subscriptions.js';

/** NOTIFY channel that wakes the delivery workers when jobs are committed. */
export const JOBS_CHANNEL = 'webhook_jobs';

type Db = Transaction<Database> | Kysely<Database>;

/** An event ready to queue: `payload` is its envelope, serialised once (or a JSON string: the envelope encrypted). */
export interface QueuedEvent {
  tenantId: string;
  id: string;
  eventType: string;
  /** Called only for events some webhook wants: nobody pays for the bytes of the others. */
  payload: () => string;
}

/** The rows queuing some events write: one message per wanted event, one job per (event, webhook). */
export interface FanOutRows {
  /**
   * The messages as one JSON array, each envelope embedded as is: PostgreSQL keeps a `json`
   * value's text verbatim, and nothing escapes the payloads (a text[] parameter escaped every
   * quote of every envelope: 15 % of the CPU of batch ingest).
   */
  messagesJson: string;
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
  const messages: string[] = [];
  const jobs: FanOutRows['jobs'] = { tenantIds: [], webhookIds: [], eventIds: [], types: [] };
  for (const event of events) {
    const wanting = subscriptions.get(event.tenantId)?.filter((s) => s.events.includes(event.eventType)) ?? [];
    if (wanting.length === 0) continue;
    messages.push(`{"tenant_id":${JSON.stringify(event.tenantId)},"id":${JSON.stringify(event.id)},` +
      `"event_type":${JSON.stringify(event.eventType)},"payload":${event.payload()}}`);
    for (const subscription of wanting) {
      jobs.tenantIds.push(event.tenantId);
      jobs.webhookIds.push(subscription.webhook_id);
      jobs.eventIds.push(event.id);
      jobs.types.push(event.eventType);
    }
  }
  return messages.length > 0 ? { messagesJson: `[${messages.join(',')}]`, jobs } : undefined;
}

/** The two inserts of `rows`, as common table expressions to put in a statement's WITH. */
export function fanOutInserts({ messagesJson, jobs }: FanOutRows, now: Date): RawBuilder<unknown> {
  return sql`
    queued_messages as (
      insert into webhook_messages (tenant_id, id, event_type, payload, created_at)
      select m.tenant_id, m.id, m.event_type,
        case when json_typeof(m.payload) = 'string' then m.payload #>> '{}' else m.payload::text end, ${now}
      from json_to_recordset(${messagesJson}::json) as m(tenant_id uuid, id text, event_type text, payload json)
    ),
    queued_jobs as (
      insert into webhook_jobs (tenant_id, webhook_id, event_id, event_type, attempt, run_at, created_at)
      select j.tenant_id, j.webhook_id, j.event_id, j.event_type, 1, ${now}, ${now}
      from unnest(${jobs.tenantIds}::uuid[], ${jobs.webhookIds}::text[], ${jobs.eventIds}::text[], ${jobs.types}::text[])
        with ordinality as j(tenant_id, webhook_id, event_id, event_type, n)
      order by j.n
    )`;
}

/** Wakes the delivery workers of every process: inside a transaction at its commit, else at once. */
export async function wakeWorkers(db: Db): Promise<void> {
  await sql`select pg_notify(${JOBS_CHANNEL}, '')`.execute(db);
}
