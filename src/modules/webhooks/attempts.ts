import type { Deps } from '../../deps.js';
import { disableWebhook } from './auto-disable.js';
import type { AttemptOutcome } from './deliverer.js';
import { recordAttempt } from './delivery-history.js';
import { markFailed, markSucceeded, scheduleRetry, type ClaimedJob } from './delivery-queue.js';

export type AttemptResult = 'succeeded' | 'retry_scheduled' | 'exhausted' | 'lease_lost';

/**
 * Records one attempt of a job and moves the job on, in one transaction: done on success, next
 * attempt scheduled by `WEBHOOK_RETRY_DELAYS_MS` on failure, and after the last failure the
 * webhook is disabled. `lease_lost`: the job was dropped (webhook deactivated or deleted) or
 * re-claimed meanwhile; the attempt is still in the history if the webhook exists.
 */
export async function completeAttempt(
  deps: Deps,
  job: ClaimedJob,
  attempt: { deliveryId: string; attemptedAt: Date; outcome: AttemptOutcome },
): Promise<AttemptResult> {
  const delays = deps.config.webhookRetryDelaysMs;
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    await recordAttempt(tx, {
      tenantId: job.tenant_id,
      webhookId: job.webhook_id,
      deliveryId: attempt.deliveryId,
      jobId: job.id,
      eventId: job.event_id,
      eventType: job.event_type,
      attempt: job.attempt,
      isTest: false,
      attemptedAt: attempt.attemptedAt,
      outcome: attempt.outcome,
    });
    if (attempt.outcome.success) return (await markSucceeded(tx, job, now)) ? 'succeeded' : 'lease_lost';
    if (job.attempt < delays.length) {
      const nextAttemptAt = new Date(now.getTime() + (delays[job.attempt] ?? 0));
      return (await scheduleRetry(tx, job, nextAttemptAt)) ? 'retry_scheduled' : 'lease_lost';
    }
    if (!(await markFailed(tx, job, now))) return 'lease_lost';
    await disableWebhook(tx, deps.config, {
      tenantId: job.tenant_id,
      webhookId: job.webhook_id,
      eventId: job.event_id,
      eventType: job.event_type,
      attempts: job.attempt,
      lastError: attempt.outcome.error,
    }, now);
    return 'exhausted';
  });
}
