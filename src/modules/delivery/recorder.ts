import type { Logger } from 'pino';
import type { Deps } from '../../platform/deps.js';
import { recordCompletions, type AttemptResult, type Completion } from './completions.js';
import { logFailure } from '../../platform/store/store-outages.js';

/** Outcomes recorded in one transaction at most, and how long one waits for others to join it. */
const FLUSH_MAX = 500;
const FLUSH_DELAY_MS = 10;
const FLUSH_RETRY_MS = 1000;
/** A stopping worker gives up recording after this many failed batches in a row. */
const CLOSE_FAILURES = 3;

/**
 * Buffers the outcomes of a worker's attempts and records them in batches (`recordCompletions`).
 * A batch that fails is kept for the next try: recording is idempotent, so a batch whose commit
 * went through unbeknown to us is harmless to repeat; a batch that keeps failing is halved until
 * the outcome at fault is alone, and that one goes to the back so it never blocks the others.
 */
export class OutcomeRecorder {
  private pending: Completion[] = [];
  private flushing: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private limit = FLUSH_MAX;
  private closing = false;

  constructor(
    private readonly deps: Deps,
    private readonly leaseId: string,
    private readonly logger: Logger,
    /** Called once an outcome is recorded (its job is no longer this worker's). */
    private readonly onRecorded: (completion: Completion) => void,
  ) {}

  add(completion: Completion): void {
    this.pending.push(completion);
    this.schedule(this.pending.length >= FLUSH_MAX ? 0 : FLUSH_DELAY_MS);
  }

  /**
   * Records everything buffered, for a worker that stops: batch after batch while they succeed,
   * giving up after a few failures in a row (the store is down: those jobs' leases lapse and
   * their attempts are made again).
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (let failures = 0; (this.pending.length > 0 || this.flushing) && failures < CLOSE_FAILURES;) {
      if (!(await this.flush())) failures += 1;
      else failures = 0;
    }
  }

  private schedule(delayMs: number): void {
    if (this.flushing || this.timer || this.closing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
  }

  /** Records the next batch; true when it was recorded. */
  private flush(): Promise<boolean> {
    if (this.flushing) return this.flushing;
    const batch = this.pending.splice(0, this.limit);
    if (batch.length === 0) return Promise.resolve(true);
    let retryIn = 0;
    this.flushing = recordCompletions(this.deps, this.leaseId, batch)
      .then((results) => {
        this.limit = FLUSH_MAX;
        for (const [i, completion] of batch.entries()) {
          this.onRecorded(completion);
          this.log(completion, results[i]!);
        }
        return true;
      }, (error: unknown) => {
        // While the store is down the leases of these jobs cannot be renewed and lapse, and
        // another worker may make those attempts again (at least once).
        if (batch.length === 1 && this.limit === 1) this.pending.push(...batch);
        else this.pending.unshift(...batch);
        this.limit = Math.max(1, Math.floor(batch.length / 2));
        retryIn = FLUSH_RETRY_MS;
        logFailure(this.deps.store, this.logger, 'warn', error, 'webhook attempts not recorded yet; will retry',
          { attempts: batch.length });
        return false;
      })
      .finally(() => {
        this.flushing = undefined;
        if (this.pending.length > 0) this.schedule(retryIn);
      });
    return this.flushing;
  }

  private log(completion: Completion, result: AttemptResult): void {
    const { job, outcome, deliveryId } = completion;
    if (outcome.success && !this.logger.isLevelEnabled('debug')) return;
    const context = {
      webhookId: job.webhook_id, eventId: job.event_id, deliveryId, attempt: job.attempt,
      statusCode: outcome.statusCode, responseTimeMs: outcome.responseTimeMs, result, error: outcome.error,
    };
    if (outcome.success) this.logger.debug(context, 'webhook delivered');
    else if (result === 'exhausted') this.logger.warn(context, 'webhook disabled after its last failed attempt');
    else this.logger.info(context, 'webhook attempt failed');
  }
}
