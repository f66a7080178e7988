import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitMany } from '../../../src/platform/outbox/outbox.js';
import { Harness } from '../../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../../helpers/https-receiver.js';
import { STORES } from '../../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv, emitEvent } from '../../helpers/webhooks-fixtures.js';

const PER_WEBHOOK = 20;
const BACKLOG = 2000;
const SLOW_ANSWER_MS = 1000;
const B_EVENTS = 5;

/**
 * `room`: the process has slots to spare, so only A's per-webhook limit keeps it from taking them.
 * `full`: A's lane alone fills every first-attempt slot of the process (3/4 of 20), so B gets one
 * only because each freed slot goes round-robin over the webhooks with due work, not to the oldest job.
 */
const SETTINGS = [
  { name: 'room to spare', concurrency: 500, openAtMost: PER_WEBHOOK },
  { name: 'every slot taken', concurrency: PER_WEBHOOK, openAtMost: Math.ceil(PER_WEBHOOK * 0.75) },
];

describe.each(STORES)('tenant fairness under a slow backlog [%s]', (kind) => {
  describe.each(SETTINGS)('$name', ({ concurrency, openAtMost }) => {
    const certificates = createTestCertificates();
    let h: Harness;
    let slow: HttpsReceiver;
    let fast: HttpsReceiver;
    beforeAll(async () => {
      slow = await HttpsReceiver.start(certificates);
      fast = await HttpsReceiver.start(certificates);
      // Every slow answer comes well within the timeout: A's attempts all succeed, its lane only grows.
      h = await Harness.start(kind, {
        workers: true,
        env: deliveryEnv(certificates, {
          WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_CONCURRENCY: String(concurrency), WEBHOOK_CONCURRENCY_PER_WEBHOOK: String(PER_WEBHOOK),
        }),
      });
    });
    afterAll(async () => {
      // The worker waits for the attempts in flight: they are answered within a second, the rest at once.
      if (slow) slow.fallback = { status: 200 };
      await h?.close();
      await slow?.close();
      await fast?.close();
    });

    it('delivers tenant B\'s events at once while tenant A has a backlog of 2,000 on a receiver taking 1 s each', async () => {
      slow.fallback = { status: 200, delayMs: SLOW_ANSWER_MS };
      const a = await h.tenant('Alpha');
      const b = await h.tenant('Beta');
      const hookA = await createWebhook(h, a, { url: slow.url('/a'), events: ['interaction.created'] });
      await createWebhook(h, b, { url: fast.url('/b'), events: ['interaction.created'] });
      const queuedOfA = async () => {
        const response = await h.call('GET', `/api/v1/webhooks/${hookA.id}`, { token: a.adminToken });
        expect(response.statusCode).toBe(200);
        return (response.json() as { queued: number }).queued;
      };

      for (let batch = 0; batch < 4; batch += 1) {
        const events = Array.from({ length: BACKLOG / 4 }, (_, i) => ({
          eventType: 'interaction.created' as const, data: { id: `a${batch}-${i}` },
        }));
        await h.db.transaction().execute((tx) => emitMany(tx, a.tenantId, events, h.clock.now()));
      }
      // A's lane has grown to all it may have open at once.
      await expect.poll(() => slow.maxOpen, { timeout: 20_000 }).toBe(openAtMost);
      expect(await queuedOfA()).toBeGreaterThan(1500);

      const sent: string[] = [];
      for (let i = 0; i < B_EVENTS; i += 1) {
        const event = await emitEvent(h, b.tenantId, 'interaction.created', { id: `b${i}` });
        sent.push(event.id);
        await fast.waitFor((requests) => requests.some((r) => bodyOf(r).id === event.id));
        // B did not wait behind A: most of A's backlog is still there.
        expect(await queuedOfA()).toBeGreaterThan(1500);
      }
      expect(fast.requests.map((r) => bodyOf(r).id)).toEqual(sent);
      // A's deliveries went on meanwhile, never with more than its share open.
      const seen = slow.requests.length;
      await slow.waitFor((requests) => requests.length >= seen + 2 * openAtMost);
      expect(slow.maxOpen).toBe(openAtMost);
      expect(slow.maxOpen).toBeLessThanOrEqual(PER_WEBHOOK);
      expect(new Set(slow.requests.map((r) => bodyOf(r).id)).size).toBe(slow.requests.length);
    });
  });
});
