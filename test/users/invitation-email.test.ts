import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { STORES } from '../helpers/stores.js';
import { STRONG_PASSWORD, tokenFromText, uniqueEmail } from '../helpers/users-fixtures.js';

const DAY = 24 * 60 * 60 * 1000;

/** The whole flow through a real SMTP server: invite, receive the email, follow its link, log in. */
describe.each(STORES)('invitation email end to end [%s]', (kind) => {
  let h: Harness;
  let smtp: SmtpReceiver;
  beforeAll(async () => {
    smtp = await SmtpReceiver.start();
    h = await Harness.start(kind, {
      workers: true,
      env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'http://localhost:8080', SESSION_TTL_SECONDS: '2592000' },
    });
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  it('sends the link by email; following it activates the user, who then logs in and is active', async () => {
    const t = await h.tenant();
    const email = uniqueEmail('e2e');
    const invited = await h.call('POST', '/api/v1/users/invite', { token: t.adminToken, body: { email, role: 'viewer' } });
    expect(invited.statusCode).toBe(201);

    const mail = await smtp.waitFor(email);
    expect(mail.subject).toBe('You are invited to Acme');
    const link = /http:\/\/localhost:8080\/accept-invite\?token=\S+/.exec(mail.text)?.[0];
    expect(link).toBeDefined();
    const token = new URL(link!).searchParams.get('token')!;
    expect(token).toBe(tokenFromText(mail.text));

    const accepted = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token, password: STRONG_PASSWORD } });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().user).toMatchObject({ email, status: 'active' });

    const login = await h.call('POST', '/api/v1/auth/login', { body: { email, password: STRONG_PASSWORD } });
    expect(login.statusCode).toBe(200);
    const me = await h.call('GET', '/api/v1/users/me', { token: login.json().token });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ email, status: 'active', role: 'viewer', tenant_id: t.tenantId });
  });

  it('refuses with 410 an emailed invitation made 8 days ago; the user stays pending', async () => {
    const t = await h.tenant();
    const email = uniqueEmail('late');
    h.clock.advance(-8 * DAY);
    let userId: string;
    try {
      const invited = await h.call('POST', '/api/v1/users/invite', { token: t.adminToken, body: { email, role: 'viewer' } });
      expect(invited.statusCode).toBe(201);
      userId = invited.json().id;
    } finally {
      h.clock.reset();
    }
    const token = tokenFromText((await smtp.waitFor(email)).text);
    const r = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token, password: STRONG_PASSWORD } });
    expect(r.statusCode).toBe(410);
    expect(r.json()).toMatchObject({ code: 'invitation_expired' });
    const user = await h.call('GET', `/api/v1/users/${userId}`, { token: t.adminToken });
    expect(user.json().status).toBe('pending');
    const login = await h.call('POST', '/api/v1/auth/login', { body: { email, password: STRONG_PASSWORD } });
    expect(login.statusCode).toBe(401);
  });
});
