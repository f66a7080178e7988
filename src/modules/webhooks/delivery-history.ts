import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import type { AttemptOutcome } from './deliverer.js';

export interface AttemptRecord {
  tenantId: string;
  webhookId: string;
  deliveryId: string;
  jobId: string | null;
  eventId: string;
  eventType: string;
  attempt: number;
  isTest: boolean;
  attemptedAt: Date;
  outcome: AttemptOutcome;
}

/**
 * Adds an attempt to the webhook's history and its counters. Returns false (and records nothing)
 * when the webhook no longer exists.
 */
export async function recordAttempt(tx: Transaction<Database> | Kysely<Database>, record: AttemptRecord): Promise<boolean> {
  const webhook = await tx
    .updateTable('webhooks')
    .set((eb) => ({
      delivery_count: eb('delivery_count', '+', 1),
      last_delivery_at: sql<Date>`greatest(last_delivery_at, ${record.attemptedAt})`,
    }))
    .where('tenant_id', '=', record.tenantId)
    .where('id', '=', record.webhookId)
    .returning('id')
    .executeTakeFirst();
  if (!webhook) return false;
  await tx
    .insertInto('webhook_deliveries')
    .values({
      tenant_id: record.tenantId,
      id: record.deliveryId,
      webhook_id: record.webhookId,
      job_id: record.jobId,
      event_id: record.eventId,
      event_type: record.eventType,
      attempt: record.attempt,
      is_test: record.isTest,
      attempted_at: record.attemptedAt,
      status_code: record.outcome.statusCode,
      response_time_ms: record.outcome.responseTimeMs,
      success: record.outcome.success,
      error: record.outcome.error,
    })
    .execute();
  return true;
}
