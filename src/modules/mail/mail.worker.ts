import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../../platform/store/store.js';
import type { Clock } from '../../kernel/clock.js';
import { Poller } from '../../platform/poller.js';
import { MAIL_CHANNEL } from './mail.queue.js';
import type { Mailer } from './mailer.js';
import { logFailure } from '../../platform/store/store-outages.js';
import { serviceMetrics } from '../../platform/metrics/metrics.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { ALL_TENANTS, onlyTenants } from '../../platform/store/tenant-scope.js';

const LEASE_MS = 60_000;
const MAX_ATTEMPTS = 8;
const BATCH = 20;

/** Sends queued emails. Several processes may run it: each row is claimed under a lease. */
export class MailWorker {
  private readonly poller: Poller;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly store: Store,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
    private readonly logger: Logger,
    pollIntervalMs = 1000,
  ) {
    this.poller = new Poller(() => this.sendDue(), pollIntervalMs,
      (error) => logFailure(store, logger, 'error', error, 'mail worker failed; will retry'));
  }

  async start(): Promise<void> {
    this.unlisten = await this.store.listen(MAIL_CHANNEL, () => this.poller.wake());
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
    await this.poller.stop();
    this.mailer.close();
  }

  /** Claims a batch of due emails, sends them, and reports whether there may be more. */
  private async sendDue(): Promise<boolean> {
    const now = this.clock.now();
    const claimed = await sql<{ tenant_id: string; id: string; recipient: string; subject: string; body_text: string; attempts: number }>`
      update mail_outbox set lease_until = ${new Date(now.getTime() + LEASE_MS)}, attempts = attempts + 1
      where (tenant_id, id) in (
        select tenant_id, id from mail_outbox
        where sent_at is null and next_attempt_at <= ${now} and attempts < ${MAX_ATTEMPTS}
          and (lease_until is null or lease_until < ${now})
        order by next_attempt_at limit ${BATCH}
        for update skip locked)
      returning tenant_id, id, recipient, subject, body_text, attempts`.execute(inFixedScope(this.store.db, ALL_TENANTS));

    for (const mail of claimed.rows) {
      const db = inFixedScope(this.store.db, onlyTenants([mail.tenant_id]));
      try {
        await this.mailer.send({ to: mail.recipient, subject: mail.subject, text: mail.body_text }).catch((error: unknown) => {
          serviceMetrics.mailsSent.inc({ outcome: 'failed' });
          throw error;
        });
        serviceMetrics.mailsSent.inc({ outcome: 'sent' });
        await db
          .updateTable('mail_outbox')
          .set({ sent_at: this.clock.now(), lease_until: null, last_error: null })
          .where('tenant_id', '=', mail.tenant_id)
          .where('id', '=', mail.id)
          .execute();
      } catch (error) {
        const backoffMs = Math.min(2 ** mail.attempts * 1000, 3_600_000);
        this.logger.warn({ err: error, mailId: mail.id }, 'email not sent; will retry');
        await db
          .updateTable('mail_outbox')
          .set({
            lease_until: null,
            last_error: error instanceof Error ? error.message.slice(0, 500) : String(error),
            next_attempt_at: new Date(this.clock.now().getTime() + backoffMs),
          })
          .where('tenant_id', '=', mail.tenant_id)
          .where('id', '=', mail.id)
          .execute();
      }
    }
    return claimed.rows.length === BATCH;
  }
}
