import type { Transaction } from 'kysely';
import type { Config } from '../../config/config.js';
import type { Database } from '../../kernel/tables/database.js';
import { systemContext } from '../../kernel/context.js';
import { writeAudit } from '../audit/audit.writer.js';
import { queueMail } from '../mail/mail.queue.js';
import { dropQueuedJobs } from './queue.js';

export interface ExhaustedChain {
  tenantId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  attempts: number;
  lastError: string | null;
}

/**
 * After the last attempt of an event failed: the webhook becomes inactive, its queued jobs are
 * dropped, the admin who created it (or every active admin, if that user is gone or no longer an
 * active admin) is emailed, and the audit log records it. All in the caller's transaction, which
 * must hold the tenant's subscription lock (`lockSubscriptionChanges`).
 */
export async function disableWebhook(tx: Transaction<Database>, config: Readonly<Config>, chain: ExhaustedChain, now: Date) {
  const webhook = await tx
    .updateTable('webhooks')
    .set({ active: false, updated_at: now })
    .where('tenant_id', '=', chain.tenantId)
    .where('id', '=', chain.webhookId)
    .where('active', '=', true)
    .returning(['id', 'url', 'created_by'])
    .executeTakeFirst();
  if (!webhook) return; // already inactive: someone (or another failed chain) got there first
  const dropped = await dropQueuedJobs(tx, chain.tenantId, chain.webhookId);

  const admins = await tx
    .selectFrom('users')
    .select(['id', 'email'])
    .where('tenant_id', '=', chain.tenantId)
    .where('role', '=', 'admin')
    .where('status', '=', 'active')
    .execute();
  const creator = admins.find((admin) => admin.id === webhook.created_by);
  for (const admin of creator ? [creator] : admins) {
    await queueMail(tx, chain.tenantId, {
      to: admin.email,
      subject: `Webhook disabled: ${webhook.url}`,
      text: [
        `The webhook ${webhook.id} (${webhook.url}) has been disabled:`,
        `all ${chain.attempts} delivery attempts of event ${chain.eventId} (${chain.eventType}) failed.`,
        ...(chain.lastError ? [`Last error: ${chain.lastError}`] : []),
        '',
        'It receives no new events while disabled. Once the receiver works again, enable it with',
        `PUT ${config.server.publicBaseUrl}/api/v1/webhooks/${webhook.id} {"active": true}`,
        `and check its delivery history at ${config.server.publicBaseUrl}/api/v1/webhooks/${webhook.id}/deliveries.`,
      ].join('\n'),
    }, now);
  }

  await writeAudit(tx, systemContext(chain.tenantId), {
    action: 'webhook.disabled',
    targetType: 'webhook',
    targetId: webhook.id,
    details: {
      reason: 'delivery_failed',
      event_id: chain.eventId,
      event_type: chain.eventType,
      attempts: chain.attempts,
      last_error: chain.lastError,
      dropped_jobs: dropped,
      notified: (creator ? [creator] : admins).map((admin) => admin.email),
    },
  }, now);
}
