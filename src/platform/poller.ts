/**
 * Runs `work` in a loop: again at once while it reports more to do, otherwise after
 * `intervalMs` or as soon as `wake()` is called. `stop()` waits for the run in progress.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wakeRequested = false;

  constructor(
    private readonly work: () => Promise<boolean>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Runs `work` at once, or first after `firstRunAfterMs` (unless woken before). */
  start(firstRunAfterMs = 0): void {
    this.stopped = false;
    if (firstRunAfterMs <= 0) {
      this.wake();
      return;
    }
    this.timer = setTimeout(() => this.wake(), firstRunAfterMs);
    this.timer.unref();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.loop().finally(() => {
      this.running = undefined;
      if (this.wakeRequested) {
        this.wakeRequested = false;
        this.wake();
      } else if (!this.stopped) {
        this.timer = setTimeout(() => this.wake(), this.intervalMs);
        this.timer.unref();
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private async loop(): Promise<void> {
    try {
      while (!this.stopped && (await this.work())) {
        // keep going while there is more
      }
    } catch (error) {
      this.onError(error);
    }
  }
}
