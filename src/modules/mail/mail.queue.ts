import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { uuidv7 } from '../../kernel/ids.js';
import type { MailMessage } from './mailer.js';

export const MAIL_CHANNEL = 'mail_outbox';

/**
 * Queues an email inside the caller's transaction. The mail worker sends it after commit, so a
 * rolled-back change sends nothing and a committed one is never forgotten.
 */
export async function queueMail(
  tx: Transaction<Database> | Kysely<Database>,
  tenantId: string,
  message: MailMessage,
  now: Date,
): Promise<void> {
  await tx
    .insertInto('mail_outbox')
    .values({
      tenant_id: tenantId,
      id: uuidv7(now.getTime()),
      recipient: message.to,
      subject: message.subject,
      body_text: message.text,
      created_at: now,
      attempts: 0,
      next_attempt_at: now,
      lease_until: null,
      sent_at: null,
      last_error: null,
    })
    .execute();
  await sql`select pg_notify(${MAIL_CHANNEL}, '')`.execute(tx);
}
