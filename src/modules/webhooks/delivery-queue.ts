import { type Kysely, type Selectable, type Transaction, type Updateable, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import type { WebhookJobsTable, WebhooksTable } from './webhooks.tables.js';
import { uuidv7 } from '../../lib/ids.js';

export const JOBS_CHANNEL = 'webhook_jobs';

/** A claimed job (its lease is ours) with what its attempt needs from the webhook, read at claim time. */
export type ClaimedJob = Pick<Selectable<WebhookJobsTable>,
  'tenant_id' | 'id' | 'webhook_id' | 'event_id' | 'event_type' | 'payload' | 'attempt'>
  & { lease_id: string }
  & Pick<Selectable<WebhooksTable>,
    'url' | 'headers' | 'auth_token' | 'signing_secret' | 'previous_signing_secret' | 'previous_secret_expires_at'>;

export interface ClaimOptions {
  now: Date;
  leaseMs: number;
  /** How many jobs at most. */
  limit: number;
  /** At most this many leased jobs per webhook, counting the leases other workers hold. */
  perWebhook: number;
  /** First attempts and retries are claimed separately so that retries cannot crowd out new events. */
  retries: boolean;
}

/**
 * Claims due jobs under a lease with `FOR UPDATE SKIP LOCKED`: concurrent workers never claim the
 * same job, and a job whose worker died is claimed again once its lease expires. Webhooks are
 * taken oldest-due first, each up to its free lane capacity, so one slow receiver holding its
 * lanes never blocks the jobs of the others.
 */
export async function claimJobs(db: Kysely<Database>, options: ClaimOptions): Promise<ClaimedJob[]> {
  if (options.limit <= 0) return [];
  const { now } = options;
  const leaseUntil = new Date(now.getTime() + options.leaseMs);
  const leaseId = uuidv7(now.getTime());
  const attemptFilter = options.retries ? sql`attempt > 1` : sql`attempt = 1`;
  const result = await sql<ClaimedJob>`
    with lanes as (
      select d.tenant_id, d.webhook_id,
        ${options.perWebhook} - (
          select count(*) from webhook_jobs b
          where b.tenant_id = d.tenant_id and b.webhook_id = d.webhook_id
            and b.status = 'queued' and b.lease_until >= ${now}
        ) as free
      from webhook_jobs d
      where d.status = 'queued' and d.next_attempt_at <= ${now}
        and (d.lease_until is null or d.lease_until < ${now}) and ${attemptFilter}
      group by d.tenant_id, d.webhook_id
      order by min(d.next_attempt_at)
    ),
    picked as (
      select j.tenant_id, j.id
      from (select * from lanes where free > 0 limit ${options.limit}) l
      cross join lateral (
        select q.tenant_id, q.id from webhook_jobs q
        where q.tenant_id = l.tenant_id and q.webhook_id = l.webhook_id
          and q.status = 'queued' and q.next_attempt_at <= ${now}
          and (q.lease_until is null or q.lease_until < ${now}) and ${attemptFilter}
        order by q.next_attempt_at, q.id
        limit l.free
        for update of q skip locked
      ) j
      limit ${options.limit}
    )
    update webhook_jobs job set lease_until = ${leaseUntil}, lease_id = ${leaseId}
    from picked, webhooks w
    where job.tenant_id = picked.tenant_id and job.id = picked.id
      and w.tenant_id = job.tenant_id and w.id = job.webhook_id
    returning job.tenant_id, job.id, job.webhook_id, job.event_id, job.event_type, job.payload, job.attempt,
      job.lease_id, w.url, w.headers, w.auth_token, w.signing_secret, w.previous_signing_secret,
      w.previous_secret_expires_at`.execute(db);
  return result.rows;
}

type Db = Kysely<Database> | Transaction<Database>;

/** Ends a job whose attempt succeeded, if this worker still holds its lease. */
export function markSucceeded(tx: Db, job: ClaimedJob, now: Date): Promise<boolean> {
  return updateLeasedJob(tx, job, { status: 'succeeded', finished_at: now });
}

/** Schedules the next attempt of a job, if this worker still holds its lease. */
export function scheduleRetry(tx: Db, job: ClaimedJob, nextAttemptAt: Date): Promise<boolean> {
  return updateLeasedJob(tx, job, { attempt: job.attempt + 1, next_attempt_at: nextAttemptAt });
}

/** Ends a job whose last attempt failed, if this worker still holds its lease. */
export function markFailed(tx: Db, job: ClaimedJob, now: Date): Promise<boolean> {
  return updateLeasedJob(tx, job, { status: 'failed', finished_at: now });
}

/** Releases the lease with `changes`; false when the lease was lost (another worker owns the job now). */
async function updateLeasedJob(tx: Db, job: ClaimedJob, changes: Updateable<WebhookJobsTable>): Promise<boolean> {
  const updated = await tx
    .updateTable('webhook_jobs')
    .set({ ...changes, lease_until: null, lease_id: null })
    .where('tenant_id', '=', job.tenant_id)
    .where('id', '=', job.id)
    .where('status', '=', 'queued')
    .where('lease_id', '=', job.lease_id)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Drops every queued job of a webhook (disabled, deactivated or deleted). */
export async function dropQueuedJobs(tx: Db, tenantId: string, webhookId: string, now: Date): Promise<number> {
  const updated = await tx
    .updateTable('webhook_jobs')
    .set({ status: 'dropped', lease_until: null, lease_id: null, finished_at: now })
    .where('tenant_id', '=', tenantId)
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows);
}

export interface NewJob {
  tenantId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  payload: string;
}

/** Queues jobs whose first attempt is due at `firstAttemptAt`; the workers are woken at commit. */
export async function enqueueJobs(tx: Db, jobs: readonly NewJob[], now: Date, firstAttemptAt: Date = now): Promise<void> {
  if (jobs.length === 0) return;
  await tx
    .insertInto('webhook_jobs')
    .values(jobs.map((job) => ({
      tenant_id: job.tenantId,
      id: uuidv7(now.getTime()),
      webhook_id: job.webhookId,
      event_id: job.eventId,
      event_type: job.eventType,
      payload: job.payload,
      attempt: 1,
      next_attempt_at: firstAttemptAt,
      lease_until: null,
      lease_id: null,
      status: 'queued' as const,
      created_at: now,
      finished_at: null,
    })))
    .execute();
  await sql`select pg_notify(${JOBS_CHANNEL}, '')`.execute(tx);
}
