/** How much a group commit takes at once and how long requests may wait for it. */
export interface GroupCommitLimits {
  /** Most weight (e.g. rows) one transaction writes; a heavier request still goes, alone. */
  maxGroupWeight: number;
  /** Most weight waiting for a transaction; past it, a new request is refused at once. */
  maxPendingWeight: number;
  /** Longest a request waits for its transaction to start; past it, it is refused, nothing written. */
  maxWaitMs: number;
  /** Transactions in flight at once (each on its own connection). */
  maxInFlight: number;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface GroupCommitHooks<R, T> {
  /** Writes the requests in one transaction and returns each one's outcome once it committed. */
  commit: (requests: R[]) => Promise<Outcome<T>[]>;
  /** An error of the store itself (not of one request): every request of the group gets it. */
  isStoreFailure: (error: unknown) => boolean;
  /** The error of a request refused for lack of room or time. */
  overloaded: () => Error;
}

interface Waiting<R, T> {
  request: R;
  weight: number;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
  expired: boolean;
}

/**
 * Group commit: the requests that arrive while a transaction is in flight are written together
 * by the next one, so one commit (and its round trips) serves many requests. Each request is
 * answered only after the transaction that wrote it committed. When the shared transaction fails
 * for a reason of one request, each request is retried alone so that only the faulty one fails;
 * when the store fails, the whole group fails with that error and nothing of it is stored.
 * No library does this for a job this small (a queue and a loop), hence the hand-written code.
 */
export class GroupCommitter<R, T> {
  private readonly queue: Array<Waiting<R, T>> = [];
  private pendingWeight = 0;
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly hooks: GroupCommitHooks<R, T>, private readonly limits: GroupCommitLimits) {}

  submit(request: R, weight: number): Promise<T> {
    if (this.pendingWeight > 0 && this.pendingWeight + weight > this.limits.maxPendingWeight) {
      return Promise.reject(this.hooks.overloaded());
    }
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting<R, T> = {
        request, weight, resolve, reject, expired: false,
        timer: setTimeout(() => this.expire(waiting), this.limits.maxWaitMs),
      };
      this.queue.push(waiting);
      this.pendingWeight += weight;
      this.schedule();
    });
  }

  /** Requests waiting for a transaction, and their total weight. */
  get pending(): { requests: number; weight: number } {
    return { requests: this.queue.filter((w) => !w.expired).length, weight: this.pendingWeight };
  }

  private expire(waiting: Waiting<R, T>): void {
    waiting.expired = true;
    this.pendingWeight -= waiting.weight;
    waiting.reject(this.hooks.overloaded());
  }

  // setImmediate: the requests whose bodies arrived in the same turn of the event loop join the
  // first transaction too, at no cost in latency.
  private schedule(): void {
    if (this.inFlight >= this.limits.maxInFlight || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.runOne();
    });
  }

  private async runOne(): Promise<void> {
    if (this.inFlight >= this.limits.maxInFlight) return;
    const group = this.takeGroup();
    if (group.length === 0) return;
    this.inFlight += 1;
    this.schedule();
    try {
      await this.commit(group);
    } finally {
      this.inFlight -= 1;
      this.schedule();
    }
  }

  private takeGroup(): Array<Waiting<R, T>> {
    let taken = 0;
    let weight = 0;
    const group: Array<Waiting<R, T>> = [];
    for (const waiting of this.queue) {
      if (!waiting.expired) {
        if (group.length > 0 && weight + waiting.weight > this.limits.maxGroupWeight) break;
        clearTimeout(waiting.timer);
        weight += waiting.weight;
        group.push(waiting);
      }
      taken += 1;
    }
    this.queue.splice(0, taken);
    this.pendingWeight -= weight;
    return group;
  }

  private async commit(group: Array<Waiting<R, T>>): Promise<void> {
    let outcomes: Outcome<T>[];
    try {
      outcomes = await this.hooks.commit(group.map((waiting) => waiting.request));
    } catch (error) {
      if (group.length === 1 || this.hooks.isStoreFailure(error)) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      // Nothing of the group was stored: each request alone now, so only the faulty one fails.
      for (const waiting of group) await this.commit([waiting]);
      return;
    }
    group.forEach((waiting, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) waiting.resolve(outcome.value);
      else waiting.reject(outcome.error);
    });
  }
}
