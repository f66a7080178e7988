import type { Logger } from 'pino';
import type { Deps } from '../../deps.js';
import { prefixedId } from '../../lib/ids.js';
import { Poller } from '../../lib/poller.js';
import { OUTBOX_CHANNEL } from '../events/outbox.js';
import { completeAttempt } from './attempts.js';
import { Deliverer } from './deliverer.js';
import { claimJobs, JOBS_CHANNEL, type ClaimedJob } from './delivery-queue.js';
import { dispatchEvents } from './dispatcher.js';
import { deliveryHeaders } from './signing.js';

export interface WebhookWorkerOptions {
  /** How often to look for due work when nothing woke the worker (ms). */
  pollIntervalMs?: number;
  /** Attempts in flight in this process, all webhooks together. */
  maxInFlight?: number;
  /** Attempts in flight per webhook (counted over every worker through the leases). */
  maxPerWebhook?: number;
}

const DISPATCH_BATCH = 100;

/**
 * Delivers webhooks: moves outbox events into per-webhook jobs, then runs due attempts with
 * bounded concurrency. Several processes may run it on one PostgreSQL: jobs are claimed under
 * leases with SKIP LOCKED, so no attempt is made twice while its worker is alive, and an attempt
 * whose worker died is made again when its lease expires (at-least-once).
 */
export class WebhookWorker {
  private readonly dispatcher: Poller;
  private readonly sender: Poller;
  private readonly deliverer: Deliverer;
  private readonly running = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private readonly maxInFlight: number;
  private readonly maxPerWebhook: number;
  /** Shares of `maxInFlight`: new events always keep slots, and so do retries. */
  private readonly maxFirstAttempts: number;
  private readonly maxRetries: number;
  private firstInFlight = 0;
  private retriesInFlight = 0;
  private unlisteners: Array<() => Promise<void>> = [];

  constructor(private readonly deps: Deps, private readonly logger: Logger, options: WebhookWorkerOptions = {}) {
    const timeoutMs = deps.config.webhookTimeoutMs;
    this.leaseMs = deps.config.webhookLeaseMs ?? Math.max(60_000, 2 * timeoutMs + 10_000);
    this.maxInFlight = options.maxInFlight ?? 16;
    this.maxPerWebhook = options.maxPerWebhook ?? 2;
    this.maxFirstAttempts = Math.max(1, Math.ceil(this.maxInFlight * 0.75));
    this.maxRetries = Math.max(1, Math.floor(this.maxInFlight / 2));
    this.deliverer = new Deliverer(deps.config);
    const pollIntervalMs = options.pollIntervalMs ?? 1000;
    const onError = (what: string) => (error: unknown) => logger.error({ err: error }, `webhook ${what} failed; will retry`);
    this.dispatcher = new Poller(() => this.dispatch(), pollIntervalMs, onError('dispatch'));
    this.sender = new Poller(() => this.startDueAttempts(), pollIntervalMs, onError('delivery'));
  }

  async start(): Promise<void> {
    this.unlisteners = [
      await this.deps.store.listen(OUTBOX_CHANNEL, () => this.dispatcher.wake()),
      await this.deps.store.listen(JOBS_CHANNEL, () => this.sender.wake()),
    ];
    this.dispatcher.start();
    this.sender.start();
  }

  /** Stops claiming, lets the attempts in flight finish and record their outcome. */
  async stop(): Promise<void> {
    for (const unlisten of this.unlisteners) await unlisten();
    await Promise.all([this.dispatcher.stop(), this.sender.stop()]);
    await Promise.allSettled([...this.running]);
    await this.deliverer.close();
  }

  private async dispatch(): Promise<boolean> {
    const { config, store, clock } = this.deps;
    const count = await dispatchEvents(store.db, clock.now(), DISPATCH_BATCH, config.webhookRetryDelaysMs[0] ?? 0);
    if (count > 0) this.sender.wake();
    return count === DISPATCH_BATCH;
  }

  /** Claims what fits in the free slots and starts it; finished attempts wake this again. */
  private async startDueAttempts(): Promise<boolean> {
    for (const retries of [false, true]) {
      const free = this.maxInFlight - this.firstInFlight - this.retriesInFlight;
      const classFree = retries ? this.maxRetries - this.retriesInFlight : this.maxFirstAttempts - this.firstInFlight;
      const jobs = await claimJobs(this.deps.store.db, {
        now: this.deps.clock.now(),
        leaseMs: this.leaseMs,
        limit: Math.min(free, classFree),
        perWebhook: this.maxPerWebhook,
        retries,
      });
      for (const job of jobs) this.launch(job, retries);
    }
    return false;
  }

  private launch(job: ClaimedJob, retry: boolean): void {
    if (retry) this.retriesInFlight += 1;
    else this.firstInFlight += 1;
    const run = this.attempt(job)
      .catch((error: unknown) => {
        // The outcome could not be recorded: the lease expires and the attempt is made again.
        this.logger.error({ err: error, webhookId: job.webhook_id, eventId: job.event_id }, 'webhook attempt not recorded');
      })
      .finally(() => {
        if (retry) this.retriesInFlight -= 1;
        else this.firstInFlight -= 1;
        this.running.delete(run);
        this.sender.wake();
      });
    this.running.add(run);
  }

  private async attempt(job: ClaimedJob): Promise<void> {
    const attemptedAt = this.deps.clock.now();
    const deliveryId = prefixedId('dlv', attemptedAt.getTime());
    const headers = deliveryHeaders(job, {
      deliveryId, eventId: job.event_id, eventType: job.event_type, body: job.payload, now: attemptedAt,
    });
    const outcome = await this.deliverer.send({ url: job.url, headers, body: job.payload });
    const result = await completeAttempt(this.deps, job, { deliveryId, attemptedAt, outcome });
    const context = {
      webhookId: job.webhook_id, eventId: job.event_id, deliveryId, attempt: job.attempt,
      statusCode: outcome.statusCode, responseTimeMs: outcome.responseTimeMs, result,
    };
    if (outcome.success) this.logger.debug(context, 'webhook delivered');
    else if (result === 'exhausted') this.logger.warn({ ...context, error: outcome.error }, 'webhook disabled after its last failed attempt');
    else this.logger.info({ ...context, error: outcome.error }, 'webhook attempt failed');
  }
}
