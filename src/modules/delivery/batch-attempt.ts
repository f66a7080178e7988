import type { Deps } from '../../platform/deps.js';
import { prefixedId } from '../../kernel/ids.js';
import { openPayload } from '../../platform/outbox/outbox.js';
import { batchedFormat, type Transports } from './batched-formats.js';
import type { Completion } from './completions.js';
import { renderBodyOrFail, renderContext } from './formats/formats.js';
import type { ClaimedJob } from './queue.js';
import { openWebhookSecrets } from './secrets.js';
import { renderFailure } from './sender.js';
import { splitBatches } from './transport/transport.js';

/**
 * The jobs of one webhook that a slot took together (a batched format), in queue order: each
 * rendered, cut into requests by the format's limits, sent one request after the other. Every job
 * gets its own attempt, with the outcome of the request that carried it, so that history, retries
 * and the disable rule treat it as a single delivery. True when every job was delivered.
 */
export async function attemptBatch(
  deps: Deps, transports: Transports, jobs: readonly ClaimedJob[], record: (completion: Completion) => void,
): Promise<boolean> {
  const first = jobs[0];
  const spec = first && batchedFormat(first.format);
  const transport = first && transports.batch(first.format);
  if (!first || !spec || !transport) throw new Error('a batch needs jobs of a batched format');
  const keys = await deps.keyring.forTenant(first.tenant_id);
  // The webhook's fields were read with the claim: the same row for every job of its lane.
  const target = openWebhookSecrets(keys, first);
  const context = renderContext(deps.config);
  const attempt = (job: ClaimedJob, attemptedAt: Date) => ({ job, deliveryId: prefixedId('dlv', attemptedAt.getTime()), attemptedAt });
  let delivered = true;
  const rendered: Array<{ job: ClaimedJob; body: string }> = [];
  for (const job of jobs) {
    try {
      rendered.push({ job, body: renderBodyOrFail(job.format, openPayload(keys, job.payload), context) });
    } catch (error) {
      record({ ...attempt(job, deps.clock.now()), outcome: renderFailure(error) });
      delivered = false;
    }
  }
  for (const part of splitBatches(rendered, spec)) {
    const attemptedAt = deps.clock.now();
    const outcome = await transport.sendBatch(target, part.map((item) => item.body));
    for (const { job } of part) record({ ...attempt(job, attemptedAt), outcome });
    delivered &&= outcome.success;
  }
  return delivered;
}
