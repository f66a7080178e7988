import type { Deps } from '../../platform/deps.js';
import { disableWebhook } from './auto-disable.js';
import { recordAttempts } from './history.js';
import { finishJobs, jobKey, rescheduleJobs, type ClaimedJob } from './queue.js';
import type { AttemptOutcome } from './sender.js';
import { lockSubscriptionChanges } from '../../platform/outbox/subscriptions.js';
import { inTenants } from '../../platform/store/tenant-scope.js';

/** An attempt made, waiting to be recorded. */
export interface Completion {
  job: ClaimedJob;
  deliveryId: string;
  attemptedAt: Date;
  outcome: AttemptOutcome;
}

/**
 * `lease_lost`: the job was dropped (webhook deactivated or deleted) or re-claimed by another
 * worker after this one's lease expired; the attempt is in the history all the same.
 */
export type AttemptResult = 'succeeded' | 'retry_scheduled' | 'exhausted' | 'lease_lost';

/**
 * Records a batch of attempts in one transaction, one statement per table: the history rows,
 * the finished jobs deleted, the failed ones rescheduled by `WEBHOOK_RETRY_DELAYS_MS`, and, after
 * an event's last failed attempt, its webhook disabled. Only jobs `leaseId` still holds move on.
 */
export async function recordCompletions(deps: Deps, leaseId: string, completions: readonly Completion[]): Promise<AttemptResult[]> {
  const delays = deps.config.webhooks.retryDelaysMs;
  const now = deps.clock.now();
  const isLast = (c: Completion) => !c.outcome.success && c.job.attempt >= delays.length;
  const tenantIds = [...new Set(completions.map((c) => c.job.tenant_id))];
  return inTenants(tenantIds, () => deps.store.db.transaction().execute(async (tx) => {
    // Disabling changes subscriptions: its lock comes before any row lock, in one order for all.
    const disablingTenants = [...new Set(completions.filter(isLast).map((c) => c.job.tenant_id))].sort();
    for (const tenantId of disablingTenants) await lockSubscriptionChanges(tx, tenantId);

    await recordAttempts(tx, completions.map((c) => ({
      tenantId: c.job.tenant_id, webhookId: c.job.webhook_id, deliveryId: c.deliveryId, eventId: c.job.event_id,
      eventType: c.job.event_type, attempt: c.job.attempt, isTest: false, format: c.job.format, attemptedAt: c.attemptedAt,
      outcome: c.outcome,
    })));
    const finished = await finishJobs(tx, leaseId, completions.filter((c) => c.outcome.success || isLast(c)).map((c) => c.job));
    const retried = await rescheduleJobs(tx, leaseId, completions.filter((c) => !c.outcome.success && !isLast(c)).map((c) => ({
      tenant_id: c.job.tenant_id, id: c.job.id, runAt: new Date(now.getTime() + (delays[c.job.attempt] ?? 0)),
    })));
    const held = new Set([...finished, ...retried].map(jobKey));

    const results = completions.map((c): AttemptResult => {
      if (!held.has(jobKey(c.job))) return 'lease_lost';
      if (c.outcome.success) return 'succeeded';
      return isLast(c) ? 'exhausted' : 'retry_scheduled';
    });
    for (const [i, c] of completions.entries()) {
      if (results[i] !== 'exhausted') continue;
      await disableWebhook(tx, deps.config, {
        tenantId: c.job.tenant_id, webhookId: c.job.webhook_id, eventId: c.job.event_id, eventType: c.job.event_type,
        attempts: c.job.attempt, lastError: c.outcome.error,
      }, now);
    }
    return results;
  }));
}
