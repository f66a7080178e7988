import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Deps } from '../../platform/deps.js';
import { prefixedId } from '../../kernel/ids.js';
import { Poller } from '../../platform/poller.js';
import { JOBS_CHANNEL } from '../../platform/outbox/outbox.js';
import { openWebhookSecrets } from './secrets.js';
import { openPayload } from '../../platform/outbox/outbox.js';
import { claimJobs, jobKey, releaseLeases, renewLeases, type ClaimedJob, type Lane } from './queue.js';
import { LaneLimits } from './lanes.js';
import { OutcomeRecorder } from './recorder.js';
import { type AttemptOutcome, Sender, sendInFormat } from './sender.js';
import { deliveryHeaders } from './signing.js';
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
 * outcomes in batches. Its leases are short and renewed while it works, so the jobs of a worker
 * that died are taken by another within seconds. Several processes may run it on one PostgreSQL.
 */
export class DeliveryWorker {
  private readonly leaseId = randomUUID();
  private readonly claimer: Poller;
  private readonly sender: Sender;
  private readonly maxInFlight: number;
  private readonly lanes: LaneLimits;
  /** First attempts and retries each have a share of the slots, so neither class starves the other. */
  private readonly maxFirstAttempts: number;
  private readonly maxRetries: number;
  private firstInFlight = 0;
  private retriesInFlight = 0;
  /** Jobs sent or being sent whose outcome is not recorded yet. */
  private readonly held = new Set<string>();
  private readonly attempts = new Set<Promise<void>>();
  private readonly recorder: OutcomeRecorder;
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
    this.sender = new Sender(config);
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
    await acrossTenants(() => releaseLeases(this.deps.store.db, this.leaseId)).catch(() => {});
    await this.sender.close();
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
      });
      for (const job of jobs) this.launch(job, retries);
      const last = jobs.at(-1);
      if (last) this.after = laneOf(last);
      // Only first attempts tell whether a lane has more waiting: a retry claim finds none of them.
      if (!retries) this.lanes.claimed(asked, jobs.map(laneOf));
    }
    return false;
  }

  private launch(job: ClaimedJob, retry: boolean): void {
    const key = jobKey(job);
    // Ours already: claimed again after our lease lapsed (a store outage) while its attempt was in flight.
    if (this.held.has(key)) return;
    this.held.add(key);
    const lane = laneOf(job);
    this.lanes.started(lane);
    if (retry) this.retriesInFlight += 1;
    else this.firstInFlight += 1;
    let success = false;
    const run: Promise<void> = this.attempt(job).then((delivered) => {
      success = delivered;
    }, (error: unknown) => {
      // Not recorded: its lease lapses and the attempt is made again.
      this.held.delete(jobKey(job));
      logFailure(this.deps.store, this.logger, 'error', error, 'webhook attempt failed unexpectedly',
        { webhookId: job.webhook_id, eventId: job.event_id });
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

  /** Sends one attempt and queues its outcome for recording; true when the receiver took it. */
  private async attempt(job: ClaimedJob): Promise<boolean> {
    const keys = await this.deps.keyring.forTenant(job.tenant_id);
    const target = openWebhookSecrets(keys, job);
    const attemptedAt = this.deps.clock.now();
    const deliveryId = prefixedId('dlv', attemptedAt.getTime());
    const outcome = await sendInFormat(this.sender, job.format, openPayload(keys, job.payload), (body) => ({
      url: job.url,
      headers: deliveryHeaders(target, { deliveryId, eventId: job.event_id, eventType: job.event_type, body, now: attemptedAt }),
    }));
    this.recorder.add({ job, deliveryId, attemptedAt, outcome });
    countAttempt(job, outcome, this.deps.clock.now());
    return outcome.success;
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const until = new Date(this.deps.clock.now().getTime() + this.deps.config.webhooks.leaseMs);
    await acrossTenants(() => renewLeases(this.deps.store.db, this.leaseId, until)).catch((error: unknown) => {
      logFailure(this.deps.store, this.logger, 'warn', error, 'webhook leases not renewed; will retry');
    });
  }
}

function countAttempt(job: ClaimedJob, outcome: AttemptOutcome, now: Date): void {
  const labels = { outcome: outcome.success ? 'delivered' : outcome.statusCode > 0 ? 'http_error' : 'no_response' };
  serviceMetrics.webhookAttempts.inc(labels);
  serviceMetrics.webhookAttemptDuration.observe(labels, outcome.responseTimeMs / 1000);
  if (outcome.success) {
    serviceMetrics.webhookDeliveryLatency.observe(Math.max(0, now.getTime() - job.event_created_at.getTime()) / 1000);
  }
}
