// What the bench's receivers in processes of their own share: waiting for their figures, and stopping them.
import { sleep } from './service.mjs';

/** Polls `stats()` until `enough(summary)` or `budgetMs` passes; returns `{ summary, reached }`. */
export async function pollStats(stats, enough, budgetMs) {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const summary = await stats();
    if (enough(summary)) return { summary, reached: true };
    if (Date.now() > deadline) return { summary, reached: false };
    await sleep(200);
  }
}

/** Stops the receiver's process (SIGTERM) and waits for it to exit. */
export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
