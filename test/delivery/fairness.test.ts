import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv, emitEvent } from '../helpers/webhooks-fixtures.js';

// A timeout far above the slow receiver's delay, so every attempt succeeds and lanes are exact.
describe.each(STORES)('webhook fairness [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let slow: HttpsReceiver;
  let fast: HttpsReceiver;
  beforeAll(async () => {
    slow = await HttpsReceiver.start(certificates);
    fast = await HttpsReceiver.start(certificates);
    h = await Harness.start(kind, { workers: true, env: deliveryEnv(certificates, { WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_CONCURRENCY_PER_WEBHOOK: '2' }) });
  });
  afterAll(async () => {
    await h.close();
    await slow.close();
    await fast.close();
  });

  it('keeps a slow receiver from delaying the others, with at most WEBHOOK_CONCURRENCY_PER_WEBHOOK attempts in flight per webhook', async () => {
    slow.fallback = { status: 200, delayMs: 400 };
    const t = await h.tenant();
    await createWebhook(h, t, { url: slow.url(), events: ['interaction.created'] });
    await createWebhook(h, t, { url: fast.url(), events: ['interaction.created'] });
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) ids.push((await emitEvent(h, t.tenantId, 'interaction.created', { id: `i${i}` })).id);

    await fast.waitFor((requests) => requests.length >= 12);
    // Two lanes of 400 ms answers need at least 2.4 s for 12 events; the fast receiver did not wait for them.
    expect(slow.requests.length).toBeLessThan(12);
    await slow.waitFor((requests) => requests.length >= 12, 30_000);
    expect(slow.maxOpen).toBe(2);
    for (const receiver of [slow, fast]) {
      expect(receiver.requests.map((request) => bodyOf(request).id).sort()).toEqual([...ids].sort());
    }
  });
});
