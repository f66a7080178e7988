import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { AttemptOutcome } from './sender.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface AttemptRecord {
  tenantId: string;
  webhookId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  isTest: boolean;
  /** The body format it was sent in. */
  format: string;
  attemptedAt: Date;
  outcome: AttemptOutcome;
}

/**
 * Adds attempts to their webhooks' history and counters, in one statement whatever their number.
 * Attempts of a webhook that no longer exists are not recorded. Idempotent: an attempt already
 * recorded (a retried batch whose first commit went through but whose answer was lost) is
 * neither inserted nor counted again.
 */
export async function recordAttempts(tx: Db, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const column = <T>(pick: (record: AttemptRecord) => T) => records.map(pick);
  await sql`
    with recorded as (
    insert into webhook_deliveries (tenant_id, id, webhook_id, job_id, event_id, event_type, attempt, is_test, format,
      attempted_at, status_code, response_time_ms, success, error)
    select a.tenant_id, a.id, a.webhook_id, null, a.event_id, a.event_type, a.attempt, a.is_test, a.format,
      a.attempted_at, a.status_code, a.response_time_ms, a.success, a.error
    from unnest(${column((r) => r.tenantId)}::uuid[], ${column((r) => r.deliveryId)}::text[],
      ${column((r) => r.webhookId)}::text[], ${column((r) => r.eventId)}::text[], ${column((r) => r.eventType)}::text[],
      ${column((r) => r.attempt)}::int[], ${column((r) => r.isTest)}::boolean[], ${column((r) => r.format)}::text[],
      ${column((r) => r.attemptedAt)}::timestamptz[],
      ${column((r) => r.outcome.statusCode)}::int[], ${column((r) => r.outcome.responseTimeMs)}::int[],
      ${column((r) => r.outcome.success)}::boolean[], ${column((r) => r.outcome.error)}::text[])
      as a(tenant_id, id, webhook_id, event_id, event_type, attempt, is_test, format, attempted_at, status_code,
        response_time_ms, success, error)
    where exists (select 1 from webhooks w where w.tenant_id = a.tenant_id and w.id = a.webhook_id)
    on conflict do nothing
    returning tenant_id, webhook_id, attempted_at
    )
    update webhooks w set delivery_count = w.delivery_count + a.attempts,
      last_delivery_at = greatest(w.last_delivery_at, a.last_attempt_at)
    from (
      select tenant_id, webhook_id, count(*)::int as attempts, max(attempted_at) as last_attempt_at
      from recorded group by tenant_id, webhook_id order by tenant_id, webhook_id
    ) a
    where w.tenant_id = a.tenant_id and w.id = a.webhook_id`.execute(tx);
}
