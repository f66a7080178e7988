import { Gauge, type Registry } from 'prom-client';
import { sql } from 'kysely';
import type { Deps } from '../deps.js';
import { inFixedScope } from '../store/scoped-connections.js';
import { ALL_TENANTS } from '../store/tenant-scope.js';

// One read serves all the gauges of a scrape (each collects on its own).
const CACHE_MS = 1000;

interface QueueDepths {
  webhookJobs: number;
  oldestWebhookJobSeconds: number;
  mails: number;
  oldestMailSeconds: number;
}

/**
 * The work waiting in the store, for every tenant together (each process reports what all the
 * replicas share: aggregate with max, not sum). A scrape while the store is down reports
 * `ugs_store_up 0` and leaves these out.
 */
export function queueGauges(deps: Deps, registers: Registry[]): void {
  let cached: { at: number; depths: Promise<QueueDepths | undefined> } | undefined;
  const depths = () => {
    const now = Date.now();
    if (!cached || now - cached.at >= CACHE_MS) cached = { at: now, depths: readDepths(deps).catch(() => undefined) };
    return cached.depths;
  };
  const gauge = (name: string, help: string, pick: (d: QueueDepths) => number) => new Gauge({
    name, help, registers,
    async collect() {
      const current = await depths();
      if (current) this.set(pick(current));
      else this.reset();
    },
  });
  new Gauge({
    name: 'ugs_store_up', help: '1 when the store answered the last queue read, else 0', registers,
    async collect() {
      this.set((await depths()) ? 1 : 0);
    },
  });
  gauge('ugs_webhook_queued_attempts', 'Webhook attempts waiting (due or scheduled retries), all tenants', (d) => d.webhookJobs);
  gauge('ugs_webhook_oldest_queued_seconds', 'Age of the oldest waiting webhook attempt (0 when none)', (d) => d.oldestWebhookJobSeconds);
  gauge('ugs_mail_queued', 'Emails not sent yet, all tenants', (d) => d.mails);
  gauge('ugs_mail_oldest_queued_seconds', 'Age of the oldest email not sent yet (0 when none)', (d) => d.oldestMailSeconds);
}

async function readDepths(deps: Deps): Promise<QueueDepths> {
  const { rows } = await sql<{ jobs: number | string; oldest_job: Date | null; mails: number | string; oldest_mail: Date | null }>`
    select (select count(*) from webhook_jobs) as jobs, (select min(created_at) from webhook_jobs) as oldest_job,
      (select count(*) from mail_outbox where sent_at is null) as mails,
      (select min(created_at) from mail_outbox where sent_at is null) as oldest_mail`.execute(inFixedScope(deps.store.db, ALL_TENANTS));
  const row = rows[0]!;
  const now = deps.clock.now().getTime();
  const age = (date: Date | null) => (date ? Math.max(0, (now - date.getTime()) / 1000) : 0);
  return {
    webhookJobs: Number(row.jobs), oldestWebhookJobSeconds: age(row.oldest_job),
    mails: Number(row.mails), oldestMailSeconds: age(row.oldest_mail),
  };
}
