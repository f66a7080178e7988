import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitCuttingProxy } from '../../helpers/commit-cutting-proxy.js';
import { Harness } from '../../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../../helpers/https-receiver.js';
import { ServiceProcess } from '../../helpers/process.js';
import { bodyOf, createWebhook, deliveryEnv, emitEvent } from '../../helpers/webhooks-fixtures.js';

/**
 * The worker records outcomes in batches and, when recording fails, keeps the batch and tries
 * again. A commit can succeed while its acknowledgement is lost (the connection drops between the
 * server's COMMIT and the client reading it): the retry must then be harmless, and the worker
 * must go on recording the outcomes of later attempts.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('a lost COMMIT acknowledgement while recording outcomes [postgres]', () => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  let proxy: CommitCuttingProxy;
  let worker: ServiceProcess | undefined;
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start('postgres', { workers: false, env: deliveryEnv(certificates) });
    const target = new URL(h.databaseUrl!);
    proxy = new CommitCuttingProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
  });
  afterAll(async () => {
    await worker?.stop('SIGKILL');
    await proxy?.stop();
    await h?.close();
    await receiver?.close();
  });

  it('records the batch once and keeps recording the later attempts', async () => {
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: receiver.url('/ack'), events: ['user.invited'] });
    const viaProxy = new URL(h.databaseUrl!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    worker = ServiceProcess.start(['worker'], { ...deliveryEnv(certificates), DATABASE_URL: viaProxy.toString(), LOG_LEVEL: 'debug' });
    await worker.waitForOutput(/workers running/);

    // The first outcome batch commits, but the worker is told the connection broke.
    proxy.arm('insert into webhook_deliveries');
    const first = await emitEvent(h, t.tenantId, 'user.invited', { id: 'u0' });
    await receiver.waitFor((requests) => requests.some((r) => bodyOf(r).id === first.id));
    await expect.poll(() => proxy.cuts).toBe(1);
    const jobsLeft = async () => (await h.db.selectFrom('webhook_jobs').select('event_id')
      .where('tenant_id', '=', t.tenantId).execute()).map((row) => row.event_id);
    expect(await jobsLeft()).toEqual([]);

    // Later events: delivered, and their outcomes recorded too.
    const later: Array<{ id: string }> = [];
    for (let i = 1; i <= 4; i += 1) later.push(await emitEvent(h, t.tenantId, 'user.invited', { id: `u${i}` }));
    await receiver.waitFor((requests) => later.every((event) => requests.some((r) => bodyOf(r).id === event.id)));
    const stuck = await expect.poll(jobsLeft, { timeout: 10_000 }).toEqual([]).then(() => null, (error: unknown) => error);
    if (stuck) {
      const retries = worker.logLines('webhook attempts not recorded yet; will retry');
      const errors = [...new Set(retries.map((line) => (line.err as { message?: string } | undefined)?.message))];
      throw new Error(`later outcomes never recorded: jobs left ${JSON.stringify(await jobsLeft())}; `
        + `${retries.length} failed recording retries, errors: ${JSON.stringify(errors)}`);
    }
    const history = await h.db.selectFrom('webhook_deliveries').select(['event_id', 'success'])
      .where('tenant_id', '=', t.tenantId).where('webhook_id', '=', hook.id).execute();
    expect(history.map((row) => row.event_id).sort()).toEqual([first, ...later].map((event) => event.id).sort());
    expect(history.every((row) => row.success)).toBe(true);
    // The repeated batch counted its attempt once.
    const read = await h.call('GET', `/api/v1/webhooks/${hook.id}`, { token: t.adminToken });
    expect(read.json()).toMatchObject({ delivery_count: 5, queued: 0, oldest_queued_at: null });
  });
});
