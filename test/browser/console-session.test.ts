import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness, TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';

describe.skipIf(!chromiumFound).each(STORES)('console sign-in and session [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let tenant: TestTenant;

  beforeAll(async () => {
    ({ h, base } = await startConsoleService(kind));
    browser = await launchChromium();
    tenant = await h.tenant();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('signs an admin in from any page, keeps the token out of localStorage, and signs out', async () => {
    const { context, page, errors, foreign, requests } = await openConsole(browser, base);
    try {
      await page.goto(`${base}/alerts?status=open`);
      await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
      expect(new URL(page.url()).searchParams.get('next')).toBe('/alerts?status=open');
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      await screenshot(page, 'sign-in');

      await signIn(page, base, tenant.adminEmail, undefined, `/sign-in?next=${encodeURIComponent('/alerts?status=open')}`);
      expect(new URL(page.url()).pathname).toBe('/alerts');
      expect(new URL(page.url()).search).toBe('?status=open');
      await expect.poll(() => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).isVisible()).toBe(true);

      const storage = await page.evaluate<{ local: object; session: object }>('({ local: { ...localStorage }, session: { ...sessionStorage } })');
      expect(JSON.stringify(storage.local)).not.toContain('ugt_');
      expect(JSON.stringify(storage.session)).toContain('ugt_');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
      expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
      // The token was revoked by the service, not only forgotten by the page.
      const logout = requests.find((r) => new URL(r.url()).pathname === '/api/v1/auth/logout');
      expect((await logout?.response())?.status()).toBe(204);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the API sentence for a wrong password and stays on sign-in', async () => {
    const { context, page, errors } = await openConsole(browser, base);
    try {
      await page.goto(`${base}/sign-in`);
      await page.getByLabel('Email').fill(tenant.adminEmail);
      await page.getByLabel('Password', { exact: true }).fill('Wrong-Password-1');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const alert = page.getByRole('alert');
      await expect.poll(() => alert.textContent()).toMatch(/invalid email or password/i);
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a role another admin changed at the next page change', async () => {
    const viewer = await h.user(tenant, 'viewer');
    const { context, page, errors } = await openConsole(browser, base);
    try {
      await signIn(page, base, viewer.email);
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.getByRole('link', { name: 'Audit log' }).count()).toBe(0);

      const promoted = await h.call('PUT', `/api/v1/users/${viewer.id}`, { token: tenant.adminToken, body: { role: 'admin' } });
      expect(promoted.statusCode).toBe(200);
      await nav.getByRole('link', { name: 'Interactions' }).click();
      await expect.poll(() => nav.getByRole('link', { name: 'Audit log' }).isVisible(), { timeout: 10_000 }).toBe(true);
      expect(await page.evaluate<string>(`JSON.parse(sessionStorage.getItem('ugs.session')).user.role`)).toBe('admin');
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('goes back to sign-in when the session ends, then returns to the page the user was on', async () => {
    const viewer = await h.user(tenant, 'viewer');
    const { context, page, errors } = await openConsole(browser, base);
    try {
      await signIn(page, base, viewer.email, undefined, '/sign-in?next=%2Fteam');
      expect(new URL(page.url()).pathname).toBe('/team');
      // A viewer has no admin-only pages in the navigation.
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).count()).toBe(0);

      // The session ends behind the page's back: the token is revoked with the API.
      const token = await page.evaluate<string>(`JSON.parse(sessionStorage.getItem('ugs.session')).token`);
      expect((await h.call('POST', '/api/v1/auth/logout', { token })).statusCode).toBe(204);

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Interactions' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
      expect(new URL(page.url()).searchParams.get('next')).toBe('/interactions');
      await expect.poll(() => page.getByText('Your session has ended').isVisible()).toBe(true);

      await page.getByLabel('Email').fill(viewer.email);
      await page.getByLabel('Password', { exact: true }).fill('Correct-Horse-42');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/interactions');
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
