import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../../helpers/harness.js';
import { createTestCertificates, HttpsReceiver, type ReceivedRequest } from '../../helpers/https-receiver.js';
import { ServiceProcess } from '../../helpers/process.js';
import { bodyOf, createWebhook, deliveryEnv, emitEvent, verifyGithubStyle } from '../../helpers/webhooks-fixtures.js';

/** A lane's first claim takes this many of its jobs at most (lanes.ts): A holds all of H1's. */
const H1_EVENTS = 4;
const H2_EVENTS = 6;
const LEASE_MS = 6_000;

// Two worker processes on one database: only a PostgreSQL server allows that.
describe.skipIf(!process.env.TEST_DATABASE_URL)('a killed worker process [postgres]', () => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  const processes: ServiceProcess[] = [];
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start('postgres', { workers: false, env: deliveryEnv(certificates) });
  });
  afterAll(async () => {
    for (const started of processes.splice(0)) await started.stop('SIGKILL');
    await h?.close();
    await receiver?.close();
  });

  async function worker(): Promise<ServiceProcess> {
    // Leases far shorter than an attempt may last: only the heartbeat keeps a live worker's jobs.
    // Long enough, though, for B to deliver H2's events on a busy machine before A's leases lapse.
    const started = ServiceProcess.start(['worker'], {
      ...deliveryEnv(certificates), DATABASE_URL: h.databaseUrl!, LOG_LEVEL: 'debug',
      WEBHOOK_LEASE_MS: String(LEASE_MS), WEBHOOK_TIMEOUT_MS: '30000',
    });
    processes.push(started);
    await started.waitForOutput(/workers running/);
    return started;
  }

  const jobsOf = (tenantId: string, webhookId: string) => h.db.selectFrom('webhook_jobs')
    .select(['event_id', 'attempt', 'lease_id', 'lease_until']).where('tenant_id', '=', tenantId)
    .where('webhook_id', '=', webhookId).execute();

  it('another worker delivers other webhooks at once and retries the dead one\'s attempts within seconds, same bytes and id', async () => {
    const t = await h.tenant();
    const h1 = await createWebhook(h, t, { url: receiver.url('/h1'), events: ['interaction.created'] });
    const h2 = await createWebhook(h, t, { url: receiver.url('/h2'), events: ['user.invited'] });

    // A alone takes H1's events; the receiver holds every one of those requests open.
    const a = await worker();
    receiver.cue(...Array.from({ length: H1_EVENTS }, () => ({ hang: true as const })));
    const h1Events = [];
    for (let i = 0; i < H1_EVENTS; i += 1) h1Events.push(await emitEvent(h, t.tenantId, 'interaction.created', { id: `i${i}` }));
    await receiver.waitFor(() => receiver.at('/h1').length === H1_EVENTS);
    const held = await jobsOf(t.tenantId, h1.id);
    expect(held).toHaveLength(H1_EVENTS);
    const leaseOfA = held[0]!.lease_id;
    expect(leaseOfA).not.toBeNull();
    expect(held.every((job) => job.lease_id === leaseOfA && job.attempt === 1)).toBe(true);
    const firstTries = receiver.at('/h1').slice();

    const b = await worker();
    await a.stop('SIGKILL');
    const killedAt = Date.now();

    // B delivers H2's events while the dead worker's leases on H1's jobs still stand.
    const h2Events = [];
    for (let i = 0; i < H2_EVENTS; i += 1) h2Events.push(await emitEvent(h, t.tenantId, 'user.invited', { id: `u${i}` }));
    await receiver.waitFor(() => receiver.at('/h2').length >= H2_EVENTS);
    const stillHeld = await jobsOf(t.tenantId, h1.id);
    expect(stillHeld.map((job) => job.lease_id)).toEqual(Array(H1_EVENTS).fill(leaseOfA));
    expect(receiver.at('/h1')).toHaveLength(H1_EVENTS);

    // Then the leases lapse and B makes those attempts again; the receiver now answers them.
    await receiver.waitFor(() => receiver.at('/h1').length >= 2 * H1_EVENTS, LEASE_MS + 15_000);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 15_000);
    const order = receiver.requests.map((r) => r.path);
    const lastH2 = order.lastIndexOf('/h2');
    const retries = receiver.requests.filter((r, i) => r.path === '/h1' && i > lastH2);
    expect(retries).toHaveLength(H1_EVENTS);

    const byEvent = (requests: ReceivedRequest[]) => new Map(requests.map((r) => [r.headers['webhook-id'], r]));
    const first = byEvent(firstTries);
    const again = byEvent(retries);
    expect([...again.keys()].sort()).toEqual(h1Events.map((e) => e.id).sort());
    for (const event of h1Events) {
      const [lost, retried] = [first.get(event.id)!, again.get(event.id)!];
      expect(retried.rawBody.equals(lost.rawBody)).toBe(true);
      expect(bodyOf(retried).id).toBe(event.id);
      expect(verifyGithubStyle(h1.signing_secret, retried.rawBody, retried.headers['x-service-signature'])).toBe(true);
    }
    expect(receiver.at('/h2').map((r) => r.headers['webhook-id']).sort()).toEqual(h2Events.map((e) => e.id).sort());

    // All recorded once, as B's successful attempts; nothing left to do.
    await expect.poll(async () => (await h.db.selectFrom('webhook_jobs').select('id')
      .where('tenant_id', '=', t.tenantId).execute()).length, { timeout: 10_000 }).toBe(0);
    const history = await h.db.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', t.tenantId).execute();
    for (const [hook, events, requests] of [[h1, h1Events, again], [h2, h2Events, byEvent(receiver.at('/h2'))]] as const) {
      const records = history.filter((r) => r.webhook_id === hook.id);
      expect(records.map((r) => r.event_id).sort()).toEqual(events.map((e) => e.id).sort());
      for (const record of records) {
        expect(record).toMatchObject({ attempt: 1, success: true, status_code: 200 });
        expect(record.id).toBe(requests.get(record.event_id)!.headers['x-service-delivery']);
      }
    }
    // B made them: the dead worker logged no delivery.
    const deliveredBy = (p: ServiceProcess) => p.logLines('webhook delivered').map((line) => line.eventId as string).sort();
    await expect.poll(() => deliveredBy(b)).toEqual([...h1Events, ...h2Events].map((e) => e.id).sort());
    expect(deliveredBy(a)).toEqual([]);
    expect(receiver.requests).toHaveLength(2 * H1_EVENTS + H2_EVENTS);
  });
});
