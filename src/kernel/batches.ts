/**
 * Runs `deleteBatch` until it deletes fewer than `batchSize` rows, pausing `pauseMs` between two
 * so that purges leave room to other transactions; returns the total deleted.
 */
export async function deleteInBatches(deleteBatch: () => Promise<number>, batchSize: number, pauseMs = 20): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < batchSize) return total;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}
