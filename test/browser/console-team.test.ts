import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, unexpectedErrors } from '../helpers/console.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { listen } from '../helpers/listening.js';
import { freePort } from '../helpers/process.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { STORES } from '../helpers/stores.js';
import { STRONG_PASSWORD, uniqueEmail } from '../helpers/users-fixtures.js';

const SELF_RULE = 'You cannot lower your own role, disable or delete yourself: another admin must do it';

const userRow = (page: Page, email: string) => page.getByTestId(`user-${email}`);

async function storedUser(h: Harness, t: TestTenant, id: string) {
  const response = await h.call('GET', `/api/v1/users/${id}`, { token: t.adminToken });
  return { status: response.statusCode, user: response.statusCode === 200 ? response.json() : undefined };
}

/**
 * The service with its background workers and a real SMTP receiver, listening on a port known
 * before it starts, so the invitation email's link (PUBLIC_BASE_URL) points at this console.
 */
describe.skipIf(!chromiumFound).each(STORES)('console team and invitations [%s]', (kind) => {
  let h: Harness;
  let smtp: SmtpReceiver;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    smtp = await SmtpReceiver.start();
    const port = await freePort();
    h = await Harness.start(kind, {
      workers: true,
      env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    });
    base = await listen(h.app, port);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await smtp?.close();
  });

  it('an admin invites a user from the Team page; the emailed link lets them join, sign out and sign in again', async () => {
    const tenant = await h.tenant();
    const email = uniqueEmail('jane');
    const admin = await openConsole(browser, base);
    const invitee = await openConsole(browser, base);
    try {
      await signIn(admin.page, base, tenant.adminEmail, undefined, '/team');
      await admin.page.getByRole('button', { name: 'Invite user' }).click();
      const dialog = admin.page.getByRole('dialog', { name: 'Invite a user' });
      await dialog.getByLabel('Email').fill(email);
      await dialog.getByLabel('Role').selectOption('viewer');
      await dialog.getByLabel('Display name').fill('Jane Invited');
      await dialog.getByRole('button', { name: 'Send invitation' }).click();
      await expect.poll(() => admin.page.getByRole('status').filter({ hasText: `Invitation sent to ${email}` }).isVisible()).toBe(true);
      await expect.poll(() => userRow(admin.page, email).textContent()).toContain('invited');
      expect(await userRow(admin.page, email).textContent()).toContain('Invitation valid until');

      const pending = await h.call('GET', '/api/v1/users', { token: tenant.adminToken, query: { status: 'pending' } });
      expect(pending.json().users).toEqual([expect.objectContaining({ email, role: 'viewer', status: 'pending', display_name: 'Jane Invited' })]);

      // The email arrives at the SMTP receiver, with a link to this console.
      const mail = await smtp.waitFor(email);
      const link = new RegExp(`${base.replace(/\./g, '\\.')}/accept-invite\\?token=[A-Za-z0-9_%-]+`).exec(mail.text)?.[0];
      expect(link, mail.text).toBeDefined();

      // A fresh browser (no shared session) follows it and accepts.
      await invitee.page.goto(link!);
      await invitee.page.getByLabel('Display name').fill('Jane Doe');
      await invitee.page.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
      await invitee.page.getByLabel('Confirm password').fill(STRONG_PASSWORD);
      await screenshot(invitee.page, 'accept-invite');
      await invitee.page.getByRole('button', { name: 'Join' }).click();
      await expect.poll(() => invitee.page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
      expect(new URL(invitee.page.url()).pathname).toBe('/');
      expect(await invitee.page.getByRole('banner').textContent()).toContain(email);

      await invitee.page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => new URL(invitee.page.url()).pathname).toBe('/sign-in');
      await signIn(invitee.page, base, email, STRONG_PASSWORD);
      expect(await invitee.page.getByRole('banner').textContent()).toContain(email);

      const active = await h.call('GET', '/api/v1/users', { token: tenant.adminToken, query: { status: 'active', role: 'viewer' } });
      expect(active.json().users).toEqual([expect.objectContaining({ email, status: 'active', display_name: 'Jane Doe' })]);
      // The link was used: following it again is refused with a clear sentence.
      await invitee.page.getByRole('button', { name: 'Sign out' }).click();
      await invitee.page.goto(link!);
      await invitee.page.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
      await invitee.page.getByLabel('Confirm password').fill(`${STRONG_PASSWORD}x`);
      await invitee.page.getByRole('button', { name: 'Join' }).click();
      await expect.poll(() => invitee.page.getByRole('alert').textContent()).toBe('The two passwords differ.');
      await invitee.page.getByLabel('Confirm password').fill(STRONG_PASSWORD);
      await invitee.page.getByRole('button', { name: 'Join' }).click();
      await expect.poll(() => invitee.page.getByRole('alert').textContent()).toContain('This invitation link is not valid');

      // The admin's list shows the user active now.
      await admin.page.reload();
      await expect.poll(() => userRow(admin.page, email).textContent()).toContain('active');

      for (const opened of [admin, invitee]) {
        expect(opened.foreign()).toEqual([]);
        expect(unexpectedErrors(opened.errors)).toEqual([]);
      }
    } finally {
      await admin.context.close();
      await invitee.context.close();
    }
  });

  it('an admin changes a role, disables and enables, resets a password, resends an invitation and deletes a user', async () => {
    const tenant = await h.tenant();
    const viewer = await h.user(tenant, 'viewer');
    const otherAdmin = await h.user(tenant, 'admin');
    const pendingEmail = uniqueEmail('pending');
    const invited = await h.call('POST', '/api/v1/users/invite', { token: tenant.adminToken, body: { email: pendingEmail, role: 'viewer' } });
    expect(invited.statusCode).toBe(201);
    const pendingId = invited.json().id as string;
    await smtp.waitFor(pendingEmail);
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/team');
      await expect.poll(() => userRow(page, viewer.email).isVisible()).toBe(true);

      // The signed-in admin's own row: no role, disable, reset or delete control, and why.
      const own = userRow(page, tenant.adminEmail);
      expect(await own.textContent()).toContain(SELF_RULE);
      expect(await own.getByRole('button').count()).toBe(0);
      // The API refuses the same actions with its own sentence.
      const selfDemote = await h.call('PUT', `/api/v1/users/${tenant.adminId}`, { token: tenant.adminToken, body: { role: 'viewer' } });
      expect(selfDemote.statusCode).toBe(403);
      expect(selfDemote.json().code).toBe('self_action_forbidden');

      // Change a role.
      await userRow(page, viewer.email).getByRole('button', { name: `Edit ${viewer.email}` }).click();
      const edit = page.getByRole('dialog', { name: 'Edit user' });
      await edit.getByLabel('Role').selectOption('admin');
      await edit.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: `${viewer.email} is now admin.` }).isVisible()).toBe(true);
      expect((await storedUser(h, tenant, viewer.id)).user.role).toBe('admin');
      await expect.poll(() => userRow(page, viewer.email).getByText('admin', { exact: true }).isVisible()).toBe(true);

      // Disable (the user's token stops working at once), then enable.
      await userRow(page, viewer.email).getByRole('button', { name: `Disable ${viewer.email}` }).click();
      await expect.poll(() => userRow(page, viewer.email).getByRole('button', { name: `Enable ${viewer.email}` }).isVisible()).toBe(true);
      expect(await userRow(page, viewer.email).textContent()).toContain('disabled');
      expect((await storedUser(h, tenant, viewer.id)).user.status).toBe('inactive');
      expect((await h.call('GET', '/api/v1/users/me', { token: viewer.token })).statusCode).toBe(401);
      await userRow(page, viewer.email).getByRole('button', { name: `Enable ${viewer.email}` }).click();
      await expect.poll(() => userRow(page, viewer.email).getByRole('button', { name: `Disable ${viewer.email}` }).isVisible()).toBe(true);
      expect((await storedUser(h, tenant, viewer.id)).user.status).toBe('active');

      // Reset a password: a generated one, shown once, that works for signing in.
      await userRow(page, viewer.email).getByRole('button', { name: `Reset the password of ${viewer.email}` }).click();
      const reset = page.getByRole('dialog', { name: 'Reset password' });
      await reset.getByRole('button', { name: 'Generate a password' }).click();
      await reset.getByRole('button', { name: 'Reset password' }).click();
      await expect.poll(() => reset.getByRole('status').first().textContent()).toContain('The password was reset');
      const newPassword = (await reset.getByTestId('secret-value').textContent())!;
      expect(newPassword).toMatch(/^[A-Za-z0-9]{5}(-[A-Za-z0-9]{5}){3}$/);
      await reset.getByRole('button', { name: 'Done' }).click();
      expect(await h.login(viewer.email, newPassword)).toMatch(/^ugt_/);
      await expect(h.login(viewer.email, 'Correct-Horse-42')).rejects.toThrow(/401/);

      // Resend the invitation of a pending user: a second email, with a new link.
      await userRow(page, pendingEmail).getByRole('button', { name: `Resend the invitation to ${pendingEmail}` }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: `A new invitation was sent to ${pendingEmail}` }).isVisible()).toBe(true);
      await expect.poll(() => smtp.messages.filter((m) => m.to.includes(pendingEmail)).length, { timeout: 10_000 }).toBe(2);
      expect(await userRow(page, pendingEmail).getByRole('button', { name: /Disable|Reset the password/ }).count()).toBe(0);

      // A refusal shows the API's sentence: inviting an email already in the team.
      await page.getByRole('button', { name: 'Invite user' }).click();
      const invite = page.getByRole('dialog', { name: 'Invite a user' });
      await invite.getByLabel('Email').fill(otherAdmin.email);
      await invite.getByRole('button', { name: 'Send invitation' }).click();
      const taken = await h.call('POST', '/api/v1/users/invite', { token: tenant.adminToken, body: { email: otherAdmin.email, role: 'viewer' } });
      expect(taken.statusCode).toBe(409);
      await expect.poll(() => invite.getByRole('alert').textContent()).toBe(taken.json().error);
      await invite.getByRole('button', { name: 'Cancel' }).click();

      await page.getByLabel('Sort').selectOption('email');
      await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('email');
      await screenshot(page, 'team');

      // Filters live in the URL.
      await page.getByLabel('Status').selectOption('pending');
      await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('pending');
      await expect.poll(() => page.getByRole('row').count()).toBe(2);
      await page.getByLabel('Status').selectOption('');

      // Delete, after a confirmation; the pending user too.
      for (const [email, id] of [[otherAdmin.email, otherAdmin.id], [pendingEmail, pendingId]] as const) {
        await userRow(page, email).getByRole('button', { name: `Delete ${email}` }).click();
        const dialog = page.getByRole('dialog', { name: 'Delete user' });
        await expect.poll(() => dialog.textContent()).toContain(email);
        await dialog.getByRole('button', { name: 'Delete user' }).click();
        await expect.poll(() => page.getByRole('status').filter({ hasText: `${email} was deleted.` }).isVisible()).toBe(true);
        await expect.poll(() => userRow(page, email).count()).toBe(0);
        expect((await storedUser(h, tenant, id)).status).toBe(404);
      }
      expect((await h.call('GET', '/api/v1/users/me', { token: otherAdmin.token })).statusCode).toBe(401);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a viewer sees no team control, and the page says why', async () => {
    const tenant = await h.tenant();
    const viewer = await h.user(tenant, 'viewer');
    const { context, page, errors, foreign, requests } = await openConsole(browser, base);
    try {
      await signIn(page, base, viewer.email, undefined, '/team');
      await expect.poll(() => page.getByText('The team list and its management are for admins.').isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: /Invite|Edit|Disable|Enable|Reset|Resend|Delete/ }).count()).toBe(0);
      expect(await page.getByRole('table').count()).toBe(0);
      // The page never asked for the list the API refuses viewers.
      expect(requests.filter((r) => new URL(r.url()).pathname === '/api/v1/users')).toEqual([]);
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
