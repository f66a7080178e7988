import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { claimJobs, releaseLeases, renewLeases, type ClaimedJob } from '../../src/modules/delivery/queue.js';
import { OutcomeRecorder } from '../../src/modules/delivery/recorder.js';
import { emitMany } from '../../src/platform/outbox/outbox.js';
import { acrossTenants } from '../../src/platform/store/tenant-scope.js';
import { countOf, gate } from '../helpers/delivery-engine.js';
import { Harness } from '../helpers/harness.js';
import { createTestCertificates } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { createWebhook, deliveryEnv } from '../helpers/webhooks-fixtures.js';
import type { TestTenant } from '../helpers/harness.js';

/** More outcomes than a few of the recorder's transactions hold (500 each). */
const EVENTS = 2_600;

describe.each(STORES)('a worker\'s leases and recordings [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { env: deliveryEnv(createTestCertificates()) });
  });
  afterAll(async () => {
    await h.close();
  });

  /** A webhook with `count` queued events, all claimed under a new lease of a minute. */
  async function claimedBacklog(count: number): Promise<{ t: TestTenant; webhookId: string; leaseId: string; jobs: ClaimedJob[] }> {
    const t = await h.tenant();
    const webhook = await createWebhook(h, t, { url: 'https://127.0.0.1:9/hook', events: ['policy.created'] });
    await h.db.transaction().execute((tx) => emitMany(tx, t.tenantId,
      Array.from({ length: count }, (_, i) => ({ eventType: 'policy.created' as const, data: { id: `p-${i}` } })), h.clock.now()));
    const leaseId = crypto.randomUUID();
    const now = h.clock.now();
    const jobs = await acrossTenants(() => claimJobs(h.deps.store.db, {
      now, leaseId, leaseUntil: new Date(now.getTime() + 60_000), limit: count,
      lanes: { initial: count, free: [] }, retries: false, dueBy: now, after: undefined,
    }));
    expect(jobs).toHaveLength(count);
    return { t, webhookId: webhook.id, leaseId, jobs };
  }

  /** A recorder of `leaseId`'s outcomes, given a success for each of `jobs`; the ids it has recorded so far. */
  function recorderOf(leaseId: string, jobs: readonly ClaimedJob[]): { recorder: OutcomeRecorder; recorded: string[] } {
    const recorded: string[] = [];
    const recorder = new OutcomeRecorder(h.deps, leaseId, pino({ level: 'silent' }), (completion) => recorded.push(completion.deliveryId));
    for (const [i, job] of jobs.entries()) {
      recorder.add({ job, deliveryId: `dlv_${leaseId}_${i}`, attemptedAt: h.clock.now(),
        outcome: { statusCode: 200, responseTimeMs: 1, success: true, error: null } });
    }
    return { recorder, recorded };
  }

  /** Another transaction holding one job's row lock until `release()` (PostgreSQL: a second connection). */
  async function holdJobRow(id: number): Promise<{ release: () => Promise<void> }> {
    const locked = gate();
    const done = gate();
    const holder = acrossTenants(() => h.db.transaction().execute(async (tx) => {
      await sql`select id from webhook_jobs where id = ${id} for update`.execute(tx);
      locked.open();
      await done.promise;
    }));
    await locked.promise;
    return { release: async () => { done.open(); await holder; } };
  }

  it('records every outcome it holds when it closes, however many batches that takes', async () => {
    const { t, webhookId, leaseId, jobs } = await claimedBacklog(EVENTS);
    const { recorder, recorded } = recorderOf(leaseId, jobs);
    await recorder.close();

    expect(recorded).toHaveLength(EVENTS);
    expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
    expect(await countOf(h, 'webhook_deliveries', t.tenantId)).toBe(EVENTS);
    const listed = await h.call('GET', `/api/v1/webhooks/${webhookId}`, { token: t.adminToken });
    expect(listed.json()).toMatchObject({ queued: 0, delivery_count: EVENTS });
  });

  // Two transactions at once: PostgreSQL only (the embedded store has one connection).
  it.skipIf(kind !== 'postgres')('waits, when it closes, for the batch it is already writing', async () => {
    const { t, leaseId, jobs } = await claimedBacklog(500);
    // Another transaction holds one job's row: the recorder's batch starts and waits for it.
    const held = await holdJobRow(jobs[0]!.id);
    const { recorder, recorded } = recorderOf(leaseId, jobs); // a full batch: written at once
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = recorder.close().then(() => recorded.length);
    setTimeout(() => void held.release(), 200);
    expect(await closed).toBe(500);
    expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
  });

  it('gives back the leases of the jobs named, and only while they are still its own', async () => {
    const { leaseId, jobs } = await claimedBacklog(3);
    const [released, kept, taken] = jobs;
    const leases = async () => new Map((await acrossTenants(() => sql<{ id: string; lease_id: string | null }>`
      select id, lease_id from webhook_jobs where id = any(${jobs.map((job) => job.id)}::bigint[])`.execute(h.db))).rows
      .map((row) => [Number(row.id), row.lease_id]));
    const other = crypto.randomUUID();
    await acrossTenants(() => sql`update webhook_jobs set lease_id = ${other} where id = ${taken!.id}`.execute(h.db));

    await acrossTenants(() => releaseLeases(h.deps.store.db, leaseId, [released!, taken!]));
    expect(await leases()).toEqual(new Map([[released!.id, null], [kept!.id, leaseId], [taken!.id, other]]));
  });

  // Two transactions at once: PostgreSQL only (the embedded store has one connection).
  it.skipIf(kind !== 'postgres')('a heartbeat extends the leases it can, without waiting for the jobs being recorded', async () => {
    const { leaseId, jobs } = await claimedBacklog(3);
    const [recording, ...others] = jobs;
    const leaseOf = async (id: number) => (await acrossTenants(() => sql<{ lease_until: Date }>`
      select lease_until from webhook_jobs where id = ${id}`.execute(h.db))).rows[0]!.lease_until.getTime();
    const before = await leaseOf(recording!.id);

    const held = await holdJobRow(recording!.id);
    const until = new Date(h.clock.now().getTime() + 120_000);
    const renewed = await Promise.race([
      acrossTenants(() => renewLeases(h.deps.store.db, leaseId, until, jobs)),
      new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000)),
    ]);
    await held.release();

    expect(renewed).toBe(2);
    for (const job of others) expect(await leaseOf(job.id)).toBe(until.getTime());
    expect(await leaseOf(recording!.id)).toBe(before);
  });
});
