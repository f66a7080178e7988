import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emit, type EventEnvelope } from '../../src/platform/outbox/outbox.js';
import { lockSubscriptionChanges } from '../../src/platform/outbox/subscriptions.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv, emitEvent, sleep } from '../helpers/webhooks-fixtures.js';
import {
  countOf, gate, jobsOf, messagesOf, queuedDataIds, queuedEventIds, seededRandom, waitingAdvisoryLocks, withDeliveryWorker,
} from '../helpers/delivery-engine.js';

// Fan-out happens in the emitting transaction: these harnesses run no workers, so what a change
// queued stays in webhook_jobs for the test to read. No receiver listens on port 9.
const NOWHERE = 'https://127.0.0.1:9/hook';
const certificates = createTestCertificates();

describe.each(STORES)('fan-out [%s]', (kind) => {
  let h: Harness;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start(kind, { env: deliveryEnv(certificates, { WEBHOOK_TIMEOUT_MS: '5000' }) });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  const batch = async (t: TestTenant, count: number) => {
    const response = await h.call('POST', '/api/v1/interactions/batch', {
      token: t.adminToken, body: Array.from({ length: count }, () => interactionBody()),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ received: count, stored: count });
  };
  const interactionIds = async (t: TestTenant) =>
    (await h.db.selectFrom('interactions').select('id').where('tenant_id', '=', t.tenantId).execute()).map((row) => row.id);

  it('writes nothing for events no active webhook wants, and one message and one job per wanted event', async () => {
    const none = await h.tenant('No Webhook');
    const policyOnly = await h.tenant('Policy Only');
    const wanted = await h.tenant('Wanted');
    const other = await h.tenant('Other');
    await createWebhook(h, policyOnly, { url: NOWHERE, events: ['policy.created'] });
    const hook = await createWebhook(h, wanted, { url: NOWHERE, events: ['interaction.created'] });
    const otherHook = await createWebhook(h, other, { url: NOWHERE, events: ['interaction.created', 'policy.created'] });
    const otherEvents = [
      await emitEvent(h, other.tenantId, 'policy.created', { id: 'p1' }),
      await emitEvent(h, other.tenantId, 'interaction.created', { id: 'i1' }),
    ];
    const otherJobsBefore = await jobsOf(h, other.tenantId);
    expect(otherJobsBefore.map((job) => job.event_id)).toEqual(otherEvents.map((e) => e.id));

    await batch(none, 500);
    await batch(policyOnly, 500);
    for (const t of [none, policyOnly]) {
      expect(await interactionIds(t)).toHaveLength(500);
      expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
      expect(await countOf(h, 'webhook_messages', t.tenantId)).toBe(0);
    }

    await batch(wanted, 500);
    const jobs = await jobsOf(h, wanted.tenantId);
    expect(jobs).toHaveLength(500);
    expect(jobs.every((job) => job.webhook_id === hook.id && job.event_type === 'interaction.created' && job.attempt === 1)).toBe(true);
    const messages = await messagesOf(h, wanted.tenantId);
    expect(messages.size).toBe(500);
    // Each job points at its own stored envelope, and the envelopes are those of the 500 interactions.
    expect(new Set(jobs.map((job) => job.event_id))).toEqual(new Set(messages.keys()));
    expect([...messages.values()].sort()).toEqual((await interactionIds(wanted)).sort());
    expect((await queuedDataIds(h, wanted.tenantId, hook.id)).sort()).toEqual((await interactionIds(wanted)).sort());

    // The other tenants' queues are untouched.
    expect(await jobsOf(h, other.tenantId)).toEqual(otherJobsBefore);
    expect(await queuedEventIds(h, other.tenantId, otherHook.id)).toEqual(otherEvents.map((e) => e.id));
    expect(await countOf(h, 'webhook_messages', other.tenantId)).toBe(2);
    for (const t of [none, policyOnly]) {
      expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
      expect(await countOf(h, 'webhook_messages', t.tenantId)).toBe(0);
    }
  });

  it('queues nothing for inactive webhooks; one message per event whatever the number of subscribers; delete and deactivate drop the jobs', async () => {
    const t = await h.tenant();
    const first = await createWebhook(h, t, { url: NOWHERE, events: ['interaction.created'] });
    const inactive = await createWebhook(h, t, { url: NOWHERE, events: ['interaction.created'], active: false });
    const both = await createWebhook(h, t, { url: NOWHERE, events: ['interaction.created', 'policy.created'] });
    await batch(t, 3);
    expect(await queuedEventIds(h, t.tenantId, first.id)).toHaveLength(3);
    expect(await queuedEventIds(h, t.tenantId, both.id)).toEqual(await queuedEventIds(h, t.tenantId, first.id));
    expect(await queuedEventIds(h, t.tenantId, inactive.id)).toEqual([]);
    expect(await countOf(h, 'webhook_messages', t.tenantId)).toBe(3);

    const deleted = await h.call('DELETE', `/api/v1/webhooks/${first.id}`, { token: t.adminToken });
    expect(deleted.statusCode).toBe(204);
    expect(await queuedEventIds(h, t.tenantId, first.id)).toEqual([]);
    expect(await queuedEventIds(h, t.tenantId, both.id)).toHaveLength(3);

    const deactivated = await h.call('PUT', `/api/v1/webhooks/${both.id}`, { token: t.adminToken, body: { active: false } });
    expect(deactivated.json()).toMatchObject({ active: false, queued: 0, oldest_queued_at: null });
    expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);

    // Nobody active: nothing is written at all.
    await batch(t, 2);
    await emitEvent(h, t.tenantId, 'policy.created', { id: 'p-unwanted' });
    expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
    expect(await countOf(h, 'webhook_messages', t.tenantId)).toBe(3);

    // Re-enabled: only the events from then on.
    const enabled = await h.call('PUT', `/api/v1/webhooks/${inactive.id}`, { token: t.adminToken, body: { active: true } });
    expect(enabled.statusCode).toBe(200);
    const after = await emitEvent(h, t.tenantId, 'interaction.created', { id: 'i-after' });
    expect(await queuedEventIds(h, t.tenantId, inactive.id)).toEqual([after.id]);
    expect(await queuedEventIds(h, t.tenantId, both.id)).toEqual([]);
  });

  /*
   * Races: ~100 interactions created concurrently while a subscription change (a webhook created,
   * or re-enabled) is made in the middle of them. The rule, checked on each create: one sent after
   * the change answered is queued for the webhook; one whose 201 arrived before the change was sent
   * is not (those in between may go either way). Then a worker delivers exactly the queued ones.
   */
  interface Create { id: string; sentAt: number; arrivedAt: number }

  async function race(t: TestTenant, change: () => Promise<LightMyRequestResponse>, seed: number) {
    const random = seededRandom(seed);
    let clock = 0;
    const tick = () => (clock += 1);
    const creates: Create[] = [];
    const triggered = gate();
    const create = async () => {
      const sentAt = tick();
      const response = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody() });
      const arrivedAt = tick();
      expect(response.statusCode, response.body).toBe(201);
      creates.push({ id: (response.json() as { id: string }).id, sentAt, arrivedAt });
      if (creates.length === 25) triggered.open();
    };
    let changed: { sentAt: number; arrivedAt: number; response: LightMyRequestResponse } | undefined;
    const changing = triggered.promise.then(async () => {
      const sentAt = tick();
      const response = await change();
      changed = { sentAt, arrivedAt: tick(), response };
      // A last wave, all sent after the change answered.
      await Promise.all(Array.from({ length: 20 }, () => create()));
    });
    // 80 creates spread at random over a short window; the change starts once 25 of them answered.
    await Promise.all([...Array.from({ length: 80 }, () => sleep(Math.floor(random() * 150)).then(create)), changing]);
    return { creates, changed: changed! };
  }

  async function check(t: TestTenant, webhookId: string, result: Awaited<ReturnType<typeof race>>, seed: number) {
    const { creates, changed } = result;
    expect(changed.response.statusCode, changed.response.body).toBeLessThan(300);
    const queued = await queuedDataIds(h, t.tenantId, webhookId);
    expect(new Set(queued).size, `seed ${seed}: one job per event`).toBe(queued.length);
    const queuedSet = new Set(queued);
    const after = creates.filter((c) => c.sentAt > changed.arrivedAt);
    const before = creates.filter((c) => c.arrivedAt < changed.sentAt);
    expect(creates).toHaveLength(100);
    expect(after.length).toBeGreaterThanOrEqual(20);
    expect(before.length).toBeGreaterThanOrEqual(25);
    for (const c of after) expect(queuedSet.has(c.id), `seed ${seed}: create ${c.id} sent after the change answered`).toBe(true);
    for (const c of before) expect(queuedSet.has(c.id), `seed ${seed}: create ${c.id} answered before the change was sent`).toBe(false);
    // Nothing else is queued for it: only events of these creates.
    const ids = new Set(creates.map((c) => c.id));
    expect(queued.every((id) => ids.has(id))).toBe(true);
    return queued;
  }

  async function deliverAll(t: TestTenant, path: string, queued: string[]) {
    // The worker serves this tenant only: the earlier tests' jobs (to a port nobody listens on) go.
    await h.db.deleteFrom('webhook_jobs').where('tenant_id', '<>', t.tenantId).execute();
    await withDeliveryWorker(h, async () => {
      await receiver.waitFor((requests) => requests.filter((r) => r.path === path).length >= queued.length, 20_000);
      await expect.poll(() => countOf(h, 'webhook_jobs', t.tenantId), { timeout: 10_000 }).toBe(0);
    });
    const received = receiver.at(path).map((request) => String((bodyOf(request).data as { id: string }).id));
    expect(received.sort()).toEqual([...queued].sort());
  }

  it('a webhook created amid concurrent creates gets every event committed after it and none committed before', async () => {
    const seed = Date.now();
    const t = await h.tenant();
    let webhookId = '';
    const result = await race(t, async () => {
      const response = await h.call('POST', '/api/v1/webhooks', {
        token: t.adminToken, body: { url: receiver.url('/created'), events: ['interaction.created'] },
      });
      webhookId = (response.json() as { id: string }).id;
      return response;
    }, seed);
    const queued = await check(t, webhookId, result, seed);
    await deliverAll(t, '/created', queued);
  });

  it('a webhook re-enabled amid concurrent creates gets every event committed after it and none of its inactive time', async () => {
    const seed = Date.now();
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: receiver.url('/reenabled'), events: ['interaction.created'], active: false });
    const result = await race(t, () => h.call('PUT', `/api/v1/webhooks/${hook.id}`, {
      token: t.adminToken, body: { active: true },
    }), seed);
    const queued = await check(t, hook.id, result, seed);
    await deliverAll(t, '/reenabled', queued);
  });
});

/**
 * The order itself, shown with transactions held open (PostgreSQL only: PGlite runs one
 * transaction at a time, so nothing can be held open beside another there).
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('subscription lock [postgres]', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start('postgres', { env: deliveryEnv(certificates) });
  });
  afterAll(async () => h.close());

  /** Emits one event in a transaction kept open until `release` is opened; resolves once emitted. */
  async function heldEmit(t: TestTenant) {
    const emitted = gate<EventEnvelope>();
    const release = gate();
    const committed = h.db.transaction().execute(async (tx) => {
      emitted.open(await emit(tx, t.tenantId, 'interaction.created', { id: 'held' }, h.clock.now()));
      await release.promise;
    });
    committed.catch(() => {});
    return { envelope: await emitted.promise, release: () => release.open(), committed };
  }

  it('a webhook create waits for the open emitting transactions, and gets none of their events', async () => {
    const t = await h.tenant();
    const existing = await createWebhook(h, t, { url: NOWHERE, events: ['interaction.created'] });
    const held = await heldEmit(t);
    const order: string[] = [];
    const creating = h.call('POST', '/api/v1/webhooks', { token: t.adminToken, body: { url: NOWHERE, events: ['interaction.created'] } })
      .then((response) => {
        order.push('created');
        return response;
      });
    await expect.poll(() => waitingAdvisoryLocks(h), { timeout: 5000 }).toBe(1);
    await sleep(200);
    expect(order).toEqual([]);
    order.push('emit committing');
    held.release();
    await held.committed;
    const response = await creating;
    expect(response.statusCode, response.body).toBe(201);
    expect(order).toEqual(['emit committing', 'created']);
    const hook = response.json() as { id: string };

    expect(await queuedEventIds(h, t.tenantId, existing.id)).toEqual([held.envelope.id]);
    expect(await queuedEventIds(h, t.tenantId, hook.id)).toEqual([]);
    const after = await emitEvent(h, t.tenantId, 'interaction.created', { id: 'after' });
    expect(await queuedEventIds(h, t.tenantId, hook.id)).toEqual([after.id]);
  });

  it('a re-enable (PUT active: true) and a delete wait for the open emitting transactions too', async () => {
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: NOWHERE, events: ['interaction.created'], active: false });
    const held = await heldEmit(t);
    let answered = false;
    const enabling = h.call('PUT', `/api/v1/webhooks/${hook.id}`, { token: t.adminToken, body: { active: true } }).then((response) => {
      answered = true;
      return response;
    });
    await expect.poll(() => waitingAdvisoryLocks(h), { timeout: 5000 }).toBe(1);
    expect(answered).toBe(false);
    held.release();
    await held.committed;
    expect((await enabling).json()).toMatchObject({ active: true, queued: 0 });
    expect(await queuedEventIds(h, t.tenantId, hook.id)).toEqual([]);

    // A delete waits as well, and the event emitted meanwhile leaves no job behind it.
    const second = await heldEmit(t);
    answered = false;
    const deleting = h.call('DELETE', `/api/v1/webhooks/${hook.id}`, { token: t.adminToken }).then((response) => {
      answered = true;
      return response;
    });
    await expect.poll(() => waitingAdvisoryLocks(h), { timeout: 5000 }).toBe(1);
    expect(answered).toBe(false);
    expect(await queuedEventIds(h, t.tenantId, hook.id)).toEqual([]); // not committed yet: invisible
    second.release();
    await second.committed;
    expect((await deleting).statusCode).toBe(204);
    expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
  });

  it('an emit waits for an open re-enable, then queues its event for the re-enabled webhook', async () => {
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: NOWHERE, events: ['interaction.created'], active: false });
    const locked = gate();
    const release = gate();
    const reenabling = h.db.transaction().execute(async (tx) => {
      await lockSubscriptionChanges(tx, t.tenantId);
      const now = h.clock.now();
      await tx.updateTable('webhooks').set({ active: true, active_since: now, updated_at: now })
        .where('tenant_id', '=', t.tenantId).where('id', '=', hook.id).execute();
      locked.open();
      await release.promise;
    });
    await locked.promise;
    const order: string[] = [];
    const emitting = emitEvent(h, t.tenantId, 'interaction.created', { id: 'waiting' }).then((envelope) => {
      order.push('emitted');
      return envelope;
    });
    await expect.poll(() => waitingAdvisoryLocks(h), { timeout: 5000 }).toBe(1);
    await sleep(200);
    expect(order).toEqual([]);
    order.push('re-enable committing');
    release.open();
    await reenabling;
    const envelope = await emitting;
    expect(order).toEqual(['re-enable committing', 'emitted']);
    expect(await queuedEventIds(h, t.tenantId, hook.id)).toEqual([envelope.id]);
  });

  it('an emit waiting for an open deactivation queues nothing for the deactivated webhook', async () => {
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: NOWHERE, events: ['interaction.created'] });
    const locked = gate();
    const release = gate();
    const deactivating = h.db.transaction().execute(async (tx) => {
      await lockSubscriptionChanges(tx, t.tenantId);
      await tx.updateTable('webhooks').set({ active: false, updated_at: h.clock.now() })
        .where('tenant_id', '=', t.tenantId).where('id', '=', hook.id).execute();
      locked.open();
      await release.promise;
    });
    await locked.promise;
    const emitting = emitEvent(h, t.tenantId, 'interaction.created', { id: 'waiting' });
    await expect.poll(() => waitingAdvisoryLocks(h), { timeout: 5000 }).toBe(1);
    release.open();
    await deactivating;
    await emitting;
    expect(await countOf(h, 'webhook_jobs', t.tenantId)).toBe(0);
    expect(await countOf(h, 'webhook_messages', t.tenantId)).toBe(0);
  });
});
