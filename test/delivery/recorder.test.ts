import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { claimJobs, renewLeases, type ClaimedJob } from '../../src/modules/delivery/queue.js';
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

  it('records every outcome it holds when it closes, however many batches that takes', async () => {
    const { t, webhookId, leaseId, jobs } = await claimedBacklog(EVENTS);
    const now = h.clock.now();

    const recorded: string[] = [];
    const recorder = new OutcomeRecorder(h.deps, leaseId, pino({ level: 'silent' }), (completion) => recorded.push(completion.deliveryId));
    for (const [i, job] of jobs.entries()) {
      recorder.add({ job, deliveryId: `dlv_close_${i}`, attemptedAt: now,
        outcome: { statusCode: 200, responseTimeMs: 1, success: true, error: null } });
    }
    await recorder.close();

    expect(recorded).toHaveLength(EVENTS);
    expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
    expect(await countOf(h, 'webhook_deliveries', t.tenantId)).toBe(EVENTS);
    const listed = await h.call('GET', `/api/v1/webhooks/${webhookId}`, { token: t.adminToken });
    expect(listed.json()).toMatchObject({ queued: 0, delivery_count: EVENTS });
  });

  // Two transactions at once: PostgreSQL only (the embedded store has one connection).
  it.skipIf(kind !== 'postgres')('a heartbeat extends the leases it can, without waiting for the jobs being recorded', async () => {
    const { leaseId, jobs } = await claimedBacklog(3);
    const [recording, ...others] = jobs;
    const leaseOf = async (id: number) => (await acrossTenants(() => sql<{ lease_until: Date }>`
      select lease_until from webhook_jobs where id = ${id}`.execute(h.db))).rows[0]!.lease_until.getTime();
    const before = await leaseOf(recording!.id);

    const locked = gate();
    const release = gate();
    const holder = acrossTenants(() => h.db.transaction().execute(async (tx) => {
      await sql`select id from webhook_jobs where id = ${recording!.id} for update`.execute(tx);
      locked.open();
      await release.promise;
    }));
    await locked.promise;
    const until = new Date(h.clock.now().getTime() + 120_000);
    const renewed = await Promise.race([
      acrossTenants(() => renewLeases(h.deps.store.db, leaseId, until, jobs)),
      new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000)),
    ]);
    release.open();
    await holder;

    expect(renewed).toBe(2);
    for (const job of others) expect(await leaseOf(job.id)).toBe(until.getTime());
    expect(await leaseOf(recording!.id)).toBe(before);
  });
});
