import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Deps } from '../../platform/deps.js';
import { prefixedId } from '../../kernel/ids.js';
import { Poller } from '../../platform/poller.js';
import { JOBS_CHANNEL } from '../../platform/outbox/outbox.js';
import { OpenedSecrets } from './secrets.js';
import { openPayload } from '../../platform/outbox/outbox.js';
import { claimJobs, jobKey, releaseLeases, renewLeases, type ClaimedJob, type JobKey, type Lane } from './queue.js';
import { LaneLimits } from './lanes.js';
import { OutcomeRecorder } from './recorder.js';
import type { AttemptOutcome } from './sender.js';
import { attemptBatch } from './batch-attempt.js';
import { batchedFormat, batchSizes, Transports } from './batched-formats.js';
import type { Completion } from './completions.js';
import { renderContext } from './formats/formats.js';
import { sendEvent } from './send-event.js';
import { logFailure } from '../../platform/store/store-outages.js';
import { serviceMetrics } from '../../platform/metrics/metrics.js';
import { acrossTenants } from '../../platform/store/tenant-scope.js';

export interface DeliveryWorkerOptions {
  /** How often to look for due work when nothing woke the worker (ms). */
  pollIntervalMs?: number | undefined;
}

/**
 * Finished attempts free their slots many at a time: they are refilled by one claim within this
 * delay rather than one claim each. (New events wake a claim at once.)
 */
const REFILL_DELAY_MS = 5;
/** Retries are due seconds apart: looking for them at most this often is enough. */
const RETRY_CLAIM_INTERVAL_MS = 100;

const laneOf = (job: ClaimedJob): Lane => ({ tenantId: job.tenant_id, webhookId: job.webhook_id });

/**
 * Delivers the queued jobs: claims due ones in batches (round-robin over the webhooks), sends
 * each as soon as it is claimed, many at once but a bounded number per webhook, and records the
 * outcomes in batches. A webhook of a batched format (`splunk_hec`) gets several jobs per slot,
 * sent together (`attemptBatch`). Its leases are short and renewed while it works, so the jobs of a worker
 * that died are taken by another within seconds. Several processes may run it on one PostgreSQL.
 */
export class DeliveryWorker {
  private readonly leaseId = randomUUID();
  private readonly claimer: Poller;
  private readonly transports: Transports;
  private readonly maxInFlight: number;
  private readonly lanes: LaneLimits;
  /** First attempts and retries each have a share of the slots, so neither class starves the other. */
  private readonly maxFirstAttempts: number;
  private readonly maxRetries: number;
  private firstInFlight = 0;
  private retriesInFlight = 0;
  /** Jobs sent or being sent whose outcome is not recorded yet (their leases are renewed), by `jobKey`. */
  private readonly held = new Map<string, JobKey>();
  private readonly attempts = new Set<Promise<void>>();
  private readonly recorder: OutcomeRecorder;
  private readonly secrets = new OpenedSecrets();
  private heartbeat: NodeJS.Timeout | undefined;
  private refillTimer: NodeJS.Timeout | undefined;
  private lastRetryClaim = 0;
  private after: Lane | undefined;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly deps: Deps, private readonly logger: Logger, options: DeliveryWorkerOptions = {}) {
    const { config } = deps;
    this.maxInFlight = config.webhooks.concurrency;
    this.lanes = new LaneLimits(config.webhooks.concurrencyPerWebhook);
    this.maxFirstAttempts = Math.max(1, Math.ceil(this.maxInFlight * 0.75));
    this.maxRetries = Math.max(1, Math.floor(this.maxInFlight / 2));
    this.transports = new Transports(config);
    this.recorder = new OutcomeRecorder(deps, this.leaseId, logger, (completion) => this.held.delete(jobKey(completion.job)));
    // Which jobs are due is a question about every tenant; each job then acts in its own.
    this.claimer = new Poller(() => acrossTenants(() => this.claim()), options.pollIntervalMs ?? 1000,
      (error) => logFailure(deps.store, logger, 'error', error, 'webhook claim failed; will retry'));
  }

  async start(): Promise<void> {
    this.unlisten = await this.deps.store.listen(JOBS_CHANNEL, () => this.claimer.wake());
    this.claimer.start();
    this.heartbeat = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.deps.config.webhooks.leaseMs / 3)));
    this.heartbeat.unref();
  }

  /** Stops claiming, lets the attempts in flight finish, records them, and gives back its leases. */
  async stop(): Promise<void> {
    await this.unlisten?.();
    await this.claimer.stop();
    if (this.refillTimer) clearTimeout(this.refillTimer);
    await Promise.allSettled([...this.attempts]);
    await this.recorder.close();
    clearInterval(this.heartbeat);
    await acrossTenants(() => releaseLeases(this.deps.store.db, this.leaseId, [...this.held.values()])).catch(() => {});
    await this.transports.close();
  }

  /** Claims what fits in the free slots and starts it; finished attempts and NOTIFY wake this again. */
  private async claim(): Promise<boolean> {
    const { config, store, clock } = this.deps;
    for (const retries of [false, true]) {
      if (retries) {
        if (Date.now() - this.lastRetryClaim < RETRY_CLAIM_INTERVAL_MS) continue;
        this.lastRetryClaim = Date.now();
      }
      const limit = this.freeSlots(retries);
      if (limit <= 0) continue;
      const now = clock.now();
      const asked = this.lanes.freeSlots();
      const jobs = await claimJobs(store.db, {
        now,
        leaseId: this.leaseId,
        leaseUntil: new Date(now.getTime() + config.webhooks.leaseMs),
        limit,
        lanes: { initial: this.lanes.initial, free: asked },
        retries,
        dueBy: retries ? now : new Date(now.getTime() - (config.webhooks.retryDelaysMs[0] ?? 0)),
        after: this.after,
        batched: batchSizes(),
        lockRows: store.kind === 'postgres',
      });
      const units = slotsOf(jobs);
      for (const unit of units) this.launch(unit, retries);
      const last = jobs.at(-1);
      if (last) this.after = laneOf(last);
      // Only first attempts tell whether a lane has more waiting: a retry claim finds none of them.
      if (!retries) this.lanes.claimed(asked, units.map((unit) => laneOf(unit[0]!)));
    }
    return false;
  }

  /** Starts the attempt of one slot: a job, or the jobs of one webhook of a batched format. */
  private launch(claimed: ClaimedJob[], retry: boolean): void {
    // Ours already: claimed again after our lease lapsed (a store outage) while its attempt was in flight.
    const jobs = claimed.filter((job) => !this.held.has(jobKey(job)));
    if (jobs.length === 0) return;
    for (const job of jobs) this.held.set(jobKey(job), job);
    const lane = laneOf(jobs[0]!);
    this.lanes.started(lane);
    if (retry) this.retriesInFlight += 1;
    else this.firstInFlight += 1;
    let success = false;
    const run: Promise<void> = this.attempt(jobs).then((delivered) => {
      success = delivered;
    }, (error: unknown) => {
      // Not recorded: its lease lapses and the attempt is made again.
      for (const job of jobs) this.held.delete(jobKey(job));
      logFailure(this.deps.store, this.logger, 'error', error, 'webhook attempt failed unexpectedly',
        { webhookId: lane.webhookId, eventId: jobs[0]!.event_id, jobs: jobs.length });
    }).finally(() => {
      const wasFull = this.freeSlots(retry) === 0;
      const laneWants = this.lanes.finished(lane, success);
      if (retry) this.retriesInFlight -= 1;
      else this.firstInFlight -= 1;
      this.attempts.delete(run);
      // Another lane may be waiting for a slot of the process; this one for a batch of its own.
      if (wasFull || laneWants) this.scheduleRefill();
    });
    this.attempts.add(run);
  }

  /** Slots of the process that an attempt of this class may take now. */
  private freeSlots(retries: boolean): number {
    const free = this.maxInFlight - this.firstInFlight - this.retriesInFlight;
    const classFree = retries ? this.maxRetries - this.retriesInFlight : this.maxFirstAttempts - this.firstInFlight;
    return Math.max(0, Math.min(free, classFree));
  }

  private scheduleRefill(): void {
    if (this.refillTimer || this.claimer.isStopped) return;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined;
      this.claimer.wake();
    }, REFILL_DELAY_MS);
  }

  /** Sends the attempt of a slot and queues its outcomes for recording; true when the receiver took every job. */
  private async attempt(jobs: ClaimedJob[]): Promise<boolean> {
    const record = (completion: Completion) => {
      this.recorder.add(completion);
      countAttempt(completion.job, completion.outcome, this.deps.clock.now());
    };
    const [job] = jobs;
    if (jobs.length > 1 || batchedFormat(job!.format)) return attemptBatch(this.deps, this.transports, jobs, record);
    const keys = await this.deps.keyring.forTenant(job!.tenant_id);
    const target = this.secrets.open(keys, job!);
    const attemptedAt = this.deps.clock.now();
    const deliveryId = prefixedId('dlv', attemptedAt.getTime());
    const outcome = await sendEvent(this.transports, target, openPayload(keys, job!.payload),
      { deliveryId, eventId: job!.event_id, eventType: job!.event_type, now: attemptedAt }, renderContext(this.deps.config));
    record({ job: job!, deliveryId, attemptedAt, outcome });
    return outcome.success;
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const until = new Date(this.deps.clock.now().getTime() + this.deps.config.webhooks.leaseMs);
    await acrossTenants(() => renewLeases(this.deps.store.db, this.leaseId, until, [...this.held.values()])).catch((error: unknown) => {
      logFailure(this.deps.store, this.logger, 'warn', error, 'webhook leases not renewed; will retry');
    });
  }
}

/**
 * The claimed jobs as slots: one job each, except that the jobs of a webhook of a batched format
 * share a slot per `maxEvents`, in queue order.
 */
function slotsOf(jobs: readonly ClaimedJob[]): ClaimedJob[][] {
  const slots: ClaimedJob[][] = [];
  const batches = new Map<string, ClaimedJob[]>();
  for (const job of jobs) {
    if (!batchedFormat(job.format)) slots.push([job]);
    else {
      const key = `${job.tenant_id}/${job.webhook_id}`;
      const lane = batches.get(key);
      if (lane) lane.push(job);
      else batches.set(key, [job]);
    }
  }
  for (const lane of batches.values()) {
    const { maxEvents } = batchedFormat(lane[0]!.format)!;
    lane.sort((a, b) => a.id - b.id);
    for (let i = 0; i < lane.length; i += maxEvents) slots.push(lane.slice(i, i + maxEvents));
  }
  return slots;
}

function countAttempt(job: ClaimedJob, outcome: AttemptOutcome, now: Date): void {
  const labels = { outcome: outcome.success ? 'delivered' : outcome.statusCode > 0 ? 'http_error' : 'no_response' };
  serviceMetrics.webhookAttempts.inc(labels);
  serviceMetrics.webhookAttemptDuration.observe(labels, outcome.responseTimeMs / 1000);
  if (outcome.success) {
    serviceMetrics.webhookDeliveryLatency.observe(Math.max(0, now.getTime() - job.event_created_at.getTime()) / 1000);
  }
}
