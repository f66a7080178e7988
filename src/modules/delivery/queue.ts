import { type Kysely, type Selectable, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { WebhookJobsTable } from '../../kernel/tables/delivery.js';
import { wakeWorkers } from '../../platform/outbox/outbox.js';

type Db = Kysely<Database> | Transaction<Database>;

/** A claimed job (its lease is ours), with its payload and what its attempt needs of the webhook, as stored (sealed). */
export type ClaimedJob = Pick<Selectable<WebhookJobsTable>, 'tenant_id' | 'id' | 'webhook_id' | 'event_id' | 'event_type' | 'attempt'>
  & { payload: string; event_created_at: Date }
  & Pick<Selectable<Database['webhooks']>,
    'url' | 'format' | 'headers' | 'auth_token' | 'signing_secret' | 'previous_signing_secret' | 'previous_secret_expires_at' | 'secrets_sealed'>;

/** A webhook's queue: `tenantId` and `webhookId`. */
export interface Lane {
  tenantId: string;
  webhookId: string;
}

export interface ClaimRequest {
  now: Date;
  /** The worker claiming: it holds the leases until `leaseUntil` unless it renews them. */
  leaseId: string;
  leaseUntil: Date;
  /** How many jobs at most. */
  limit: number;
  /** How many jobs at most per webhook: `free` for the lanes listed, `initial` for the others. */
  lanes: { initial: number; free: ReadonlyArray<{ lane: Lane; free: number }> };
  /** First attempts and retries are claimed separately, so that each class keeps its own slots. */
  retries: boolean;
  /** Jobs due no later than this (first attempts: now less the first delay; retries: now). */
  dueBy: Date;
  /** Lanes after this one are served first in each round, so that no lane always comes last. */
  after: Lane | undefined;
  /**
   * Webhooks of these formats take up to `maxEvents` jobs per slot (one request carries them):
   * their lanes' shares and `limit` count slots, each of up to that many jobs.
   */
  batched?: ReadonlyArray<{ format: string; maxEvents: number }>;
  /**
   * False on the embedded store: its one connection runs one statement at a time, so no other
   * claim can take the rows meanwhile, and locking them first would only write a WAL record per job.
   */
  lockRows?: boolean;
}

/**
 * Claims due jobs under a lease with `FOR UPDATE SKIP LOCKED`, round-robin over the lanes: each
 * lane with due work gives its first slot's worth (a job; up to `maxEvents` jobs for a batched
 * format), then each its second, and so on up to its free share, until `limit` slots. The lanes are found with a skip scan of the lane index, so a lane's backlog
 * costs nothing to the claims of the others. (Jobs of inactive webhooks do not exist: stopping a
 * webhook deletes them under the subscription lock.)
 */
export async function claimJobs(db: Db, request: ClaimRequest): Promise<ClaimedJob[]> {
  if (request.limit <= 0) return [];
  const known = request.lanes.free;
  // Each class reads its own index: the lane index, or the partial index of retries.
  const inClass = (alias: string) => (request.retries ? sql.raw(`${alias}.attempt > 1`) : sql.raw(`${alias}.attempt = 1`));
  const retriesOnly = (alias: string) => (request.retries ? sql.raw(`and ${alias}.attempt > 1`) : sql``);
  const after = request.after ?? { tenantId: '00000000-0000-0000-0000-000000000000', webhookId: '' };
  const batched = request.batched ?? [];
  const result = await sql<ClaimedRow>`
    with recursive lanes as (
      (select f.tenant_id, f.webhook_id from webhook_jobs f where true ${retriesOnly('f')}
        order by f.tenant_id, f.webhook_id limit 1)
      union all
      select next.tenant_id, next.webhook_id from lanes l cross join lateral (
        select j.tenant_id, j.webhook_id from webhook_jobs j
        where (j.tenant_id, j.webhook_id) > (l.tenant_id, l.webhook_id) ${retriesOnly('j')}
        order by j.tenant_id, j.webhook_id limit 1) next
    ),
    open_lanes as (
      select l.tenant_id, l.webhook_id, coalesce(k.free, ${request.lanes.initial}::int) as free,
        coalesce(b.per_slot, 1) as per_slot
      from lanes l
      left join unnest(${known.map((k) => k.lane.tenantId)}::uuid[], ${known.map((k) => k.lane.webhookId)}::text[],
        ${known.map((k) => k.free)}::int[]) as k(tenant_id, webhook_id, free)
        on k.tenant_id = l.tenant_id and k.webhook_id = l.webhook_id
      left join webhooks w on w.tenant_id = l.tenant_id and w.id = l.webhook_id
      left join unnest(${batched.map((b) => b.format)}::text[], ${batched.map((b) => b.maxEvents)}::int[]) as b(format, per_slot)
        on b.format = w.format
      where coalesce(k.free, ${request.lanes.initial}::int) > 0
    ),
    candidates as (
      select due.tenant_id, due.id, (due.round - 1) / l.per_slot as round, l.tenant_id as lane_tenant, l.webhook_id as lane_webhook
      from open_lanes l cross join lateral (
        select locked.*, row_number() over (order by locked.run_at, locked.id) as round from (
          select q.tenant_id, q.id, q.run_at from webhook_jobs q
          where q.tenant_id = l.tenant_id and q.webhook_id = l.webhook_id and q.run_at <= ${request.dueBy}
            and (q.lease_until is null or q.lease_until < ${request.now})
            and ${inClass('q')}
          order by q.run_at, q.id
          limit l.free * l.per_slot
          ${request.lockRows === false ? sql`` : sql`for update of q skip locked`}) locked) due
    ),
    slots as (
      select tenant_id, id, dense_rank() over (
        order by round, (lane_tenant, lane_webhook) <= (${after.tenantId}::uuid, ${after.webhookId}), lane_tenant, lane_webhook) as slot
      from candidates
    ),
    chosen as (
      select tenant_id, id from slots where slot <= ${request.limit}
    ),
    claimed as (
      update webhook_jobs job set lease_until = ${request.leaseUntil}, lease_id = ${request.leaseId}
      from chosen where job.tenant_id = chosen.tenant_id and job.id = chosen.id
      returning job.tenant_id, job.id, job.webhook_id, job.event_id, job.event_type, job.attempt
    )
    select c.tenant_id, c.id, c.webhook_id, c.event_id, c.event_type, c.attempt, m.payload, m.created_at as event_created_at
    from claimed c
    join webhook_messages m on m.tenant_id = c.tenant_id and m.id = c.event_id`.execute(db);
  // Each webhook read once, not once per job: a claim holds up to thousands of one webhook's jobs.
  const webhooks = await webhooksOf(db, result.rows);
  return result.rows.flatMap((row) => {
    const webhook = webhooks.get(`${row.tenant_id}/${row.webhook_id}`);
    // Deleted since (its jobs with it): nothing to attempt.
    return webhook ? [{ ...row, ...webhook, id: Number(row.id) }] : [];
  });
}

type ClaimedRow = Pick<ClaimedJob, 'tenant_id' | 'id' | 'webhook_id' | 'event_id' | 'event_type' | 'attempt' | 'payload' | 'event_created_at'>;
type ClaimedWebhook = Omit<ClaimedJob, keyof ClaimedRow>;

async function webhooksOf(db: Db, jobs: ReadonlyArray<{ tenant_id: string; webhook_id: string }>): Promise<Map<string, ClaimedWebhook>> {
  const lanes = [...new Map(jobs.map((job) => [`${job.tenant_id}/${job.webhook_id}`, job])).values()];
  if (lanes.length === 0) return new Map();
  const { rows } = await sql<ClaimedWebhook & { tenant_id: string; id: string }>`
    select w.tenant_id, w.id, w.url, w.format, w.headers, w.auth_token, w.signing_secret, w.previous_signing_secret,
      w.previous_secret_expires_at, w.secrets_sealed
    from unnest(${lanes.map((lane) => lane.tenant_id)}::uuid[], ${lanes.map((lane) => lane.webhook_id)}::text[]) as l(tenant_id, id)
    join webhooks w on w.tenant_id = l.tenant_id and w.id = l.id`.execute(db);
  return new Map(rows.map(({ tenant_id, id, ...webhook }) => [`${tenant_id}/${id}`, webhook]));
}

/**
 * Extends the leases of the jobs a worker holds (its heartbeat), found by their keys. Returns how
 * many it extended. Jobs whose outcome is being recorded are locked by that transaction: they are
 * skipped, not waited for (they are finishing; if that transaction fails, the next heartbeat
 * extends them). Waiting would hold the locks of every other held job meanwhile, and the next
 * recordings would queue behind.
 */
export async function renewLeases(db: Db, leaseId: string, leaseUntil: Date, jobs: readonly JobKey[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const result = await sql`
    update webhook_jobs j set lease_until = ${leaseUntil}
    from (select q.tenant_id, q.id from webhook_jobs q
      join unnest(${jobs.map((j) => j.tenant_id)}::uuid[], ${jobs.map((j) => j.id)}::bigint[]) as k(tenant_id, id)
        on q.tenant_id = k.tenant_id and q.id = k.id
      where q.lease_id = ${leaseId}
      for update of q skip locked) held
    where j.tenant_id = held.tenant_id and j.id = held.id`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Gives back the leases of a stopping worker (the jobs it still holds), so that another takes them at once. */
export async function releaseLeases(db: Db, leaseId: string, jobs: readonly JobKey[]): Promise<void> {
  if (jobs.length === 0) return;
  await sql`
    update webhook_jobs j set lease_until = null, lease_id = null
    from unnest(${jobs.map((j) => j.tenant_id)}::uuid[], ${jobs.map((j) => j.id)}::bigint[]) as k(tenant_id, id)
    where j.tenant_id = k.tenant_id and j.id = k.id and j.lease_id = ${leaseId}`.execute(db);
}

export interface JobKey {
  tenant_id: string;
  id: number;
}

export const jobKey = (job: JobKey) => `${job.tenant_id}/${job.id}`;

/** Deletes finished jobs that `leaseId` still holds; returns those it deleted (the others were lost). */
export async function finishJobs(tx: Db, leaseId: string, jobs: readonly JobKey[]): Promise<JobKey[]> {
  if (jobs.length === 0) return [];
  const result = await sql<JobKey>`
    delete from webhook_jobs j
    using unnest(${jobs.map((j) => j.tenant_id)}::uuid[], ${jobs.map((j) => j.id)}::bigint[]) as f(tenant_id, id)
    where j.tenant_id = f.tenant_id and j.id = f.id and j.lease_id = ${leaseId}
    returning j.tenant_id, j.id`.execute(tx);
  return result.rows.map((row) => ({ tenant_id: row.tenant_id, id: Number(row.id) }));
}

/** Schedules the next attempt of jobs that `leaseId` still holds; returns those it rescheduled. */
export async function rescheduleJobs(tx: Db, leaseId: string, jobs: ReadonlyArray<JobKey & { runAt: Date }>): Promise<JobKey[]> {
  if (jobs.length === 0) return [];
  const result = await sql<JobKey>`
    update webhook_jobs j set attempt = j.attempt + 1, run_at = r.run_at, lease_until = null, lease_id = null
    from unnest(${jobs.map((j) => j.tenant_id)}::uuid[], ${jobs.map((j) => j.id)}::bigint[],
      ${jobs.map((j) => j.runAt)}::timestamptz[]) as r(tenant_id, id, run_at)
    where j.tenant_id = r.tenant_id and j.id = r.id and j.lease_id = ${leaseId}
    returning j.tenant_id, j.id`.execute(tx);
  if (result.rows.length > 0) await wakeWorkers(tx);
  return result.rows.map((row) => ({ tenant_id: row.tenant_id, id: Number(row.id) }));
}

/** Drops every unfinished job of a webhook (disabled, deactivated or deleted). */
export async function dropQueuedJobs(tx: Db, tenantId: string, webhookId: string): Promise<number> {
  const deleted = await tx.deleteFrom('webhook_jobs').where('tenant_id', '=', tenantId).where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/** Queues a new chain of attempts of a stored event for one webhook, due now (redelivery). */
export async function requeueEvent(tx: Db, job: { tenantId: string; webhookId: string; eventId: string; eventType: string }, now: Date) {
  await tx.insertInto('webhook_jobs').values({
    tenant_id: job.tenantId, webhook_id: job.webhookId, event_id: job.eventId, event_type: job.eventType,
    attempt: 1, run_at: now, lease_until: null, lease_id: null, created_at: now,
  }).execute();
  await wakeWorkers(tx);
}

/** What waits for one webhook: unfinished jobs and when the oldest was queued. */
export interface QueueDepth {
  webhook_id: string;
  queued: number;
  oldest_queued_at: Date | null;
}

export async function queueDepths(db: Db, tenantId: string, webhookIds: readonly string[]): Promise<Map<string, QueueDepth>> {
  if (webhookIds.length === 0) return new Map();
  const rows = await db.selectFrom('webhook_jobs')
    .select((eb) => ['webhook_id', eb.fn.countAll<number>().as('queued'), eb.fn.min('created_at').as('oldest_queued_at')])
    .where('tenant_id', '=', tenantId)
    .where('webhook_id', 'in', webhookIds)
    .groupBy('webhook_id')
    .execute();
  return new Map(rows.map((row) => [row.webhook_id, {
    webhook_id: row.webhook_id, queued: Number(row.queued), oldest_queued_at: row.oldest_queued_at as Date | null,
  }]));
}
