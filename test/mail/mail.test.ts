import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueMail } from '../../src/modules/mail/mail.queue.js';
import { Harness } from '../helpers/harness.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('mail outbox [%s]', (kind) => {
  let h: Harness;
  let smtp: SmtpReceiver;
  beforeAll(async () => {
    smtp = await SmtpReceiver.start();
    h = await Harness.start(kind, { workers: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'governance@acme.test' } });
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  it('sends a queued email once its transaction commits', async () => {
    const t = await h.tenant();
    const link = 'http://localhost:8080/accept-invite?token=abc_DEF-123';
    await h.db.transaction().execute((tx) =>
      queueMail(tx, t.tenantId, { to: 'new.user@acme.test', subject: 'Welcome', text: `Open ${link}` }, h.clock.now()),
    );
    const mail = await smtp.waitFor('new.user@acme.test');
    expect(mail.subject).toBe('Welcome');
    expect(mail.from).toBe('governance@acme.test');
    expect(mail.text).toContain(link);
    const sentAt = async () =>
      (await h.db.selectFrom('mail_outbox').select('sent_at').where('tenant_id', '=', t.tenantId).executeTakeFirstOrThrow()).sent_at;
    await expect.poll(sentAt).not.toBeNull();
  });

  it('sends nothing when the transaction rolls back', async () => {
    const t = await h.tenant();
    await expect(
      h.db.transaction().execute(async (tx) => {
        await queueMail(tx, t.tenantId, { to: 'ghost@acme.test', subject: 'Never', text: 'x' }, h.clock.now());
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await expect(smtp.waitFor('ghost@acme.test', () => true, 500)).rejects.toThrow();
    const rows = await h.db.selectFrom('mail_outbox').selectAll().where('tenant_id', '=', t.tenantId).execute();
    expect(rows).toHaveLength(0);
  });
});
