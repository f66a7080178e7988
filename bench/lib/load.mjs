// Load generators of the delivery bench: paced single creates (open loop) and concurrent batch ingest.
import { interaction, nowMs, post, sleep } from './service.mjs';

/**
 * Sends `count` single creates at `rate` per second (open loop: a slow answer does not delay the next send;
 * at most `maxInFlight` wait at once, beyond that a send is skipped and counted).
 * Returns `{ created: [{ id, at }], errors, failures, skipped, firstSentAt, lastAnswerAt }`; `at` is when the 201 ended,
 * `failures` counts the other answers by status (or error message). `item(i)` is the i-th interaction sent.
 */
export async function pacedCreates({ base, key, rate, count, maxInFlight = 256, offset = 0, item = interaction }) {
  const created = [];
  const pending = new Set();
  const failures = {};
  const fail = (why) => { failures[why] = (failures[why] ?? 0) + 1; };
  let skipped = 0;
  let issued = 0;
  const start = performance.now();
  const firstSentAt = nowMs();
  const send = (i) => {
    const request = post(base, '/api/v1/interactions', key, item(offset + i)).then(
      ({ status, body, at }) => {
        if (status === 201) created.push({ id: JSON.parse(body).id, at });
        else fail(status);
      },
      (error) => fail(error.message),
    );
    pending.add(request);
    void request.finally(() => pending.delete(request));
  };
  while (issued < count) {
    const due = Math.min(count, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    for (; issued < due; issued += 1) {
      if (pending.size >= maxInFlight) skipped += 1;
      else send(issued);
    }
    await sleep(Math.max(0, start + (issued / rate) * 1000 - performance.now()));
  }
  await Promise.all(pending);
  const lastAnswerAt = created.reduce((max, c) => Math.max(max, c.at), -Infinity);
  const errors = Object.values(failures).reduce((sum, n) => sum + n, 0);
  return { created, errors, failures, skipped, firstSentAt, lastAnswerAt };
}

/**
 * Ingests `total` interactions through POST /interactions/batch, `size` per request on `concurrency`
 * connections, stopping early once `budgetMs` has passed (`item(i)`: the i-th interaction). Returns `{ stored, seconds, reached }`.
 */
export async function batchIngest({ base, key, total, size = 500, concurrency = 1, budgetMs = Infinity, offset = 0, item = interaction }) {
  const start = performance.now();
  const deadline = start + budgetMs;
  let next = 0;
  let stored = 0;
  const worker = async () => {
    while (next < total && performance.now() < deadline) {
      const from = next;
      next = Math.min(total, next + size);
      const items = Array.from({ length: next - from }, (_, i) => item(offset + from + i));
      const { status, body } = await post(base, '/api/v1/interactions/batch', key, items);
      if (status !== 200) throw new Error(`batch: ${status} ${body}`);
      stored += JSON.parse(body).stored;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { stored, seconds: (performance.now() - start) / 1000, reached: stored >= total };
}
