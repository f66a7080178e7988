import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness, TestTenant } from '../helpers/harness.js';
import { createInteraction, createPolicy } from '../helpers/interactions-fixtures.js';

const PAGES = ['/', '/interactions', '/ai-apps', '/people-at-risk', '/alerts', '/policies', '/policies?new=1', '/team', '/webhooks', '/api-keys', '/audit-log', '/settings', '/profile'];

/** Controls without an accessible name, and buttons or links a screen reader would announce empty. */
const UNLABELLED = `[...document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href]')]
  .filter((el) => {
    const named = (el.labels && el.labels.length > 0) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')
      || el.getAttribute('title') || (el.tagName === 'BUTTON' || el.tagName === 'A') && el.textContent.trim() !== '';
    return !named;
  })
  .map((el) => el.outerHTML.slice(0, 120))`;

/**
 * What the console promises every page: each control labelled, reachable with the keyboard. The
 * pages do not depend on the store, so the embedded one is enough here.
 */
describe.skipIf(!chromiumFound)('console accessibility', () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let tenant: TestTenant;
  /** The interaction's page, and the list of the interactions holding its card number. */
  let recordPages: string[];

  beforeAll(async () => {
    ({ h, base } = await startConsoleService('pglite'));
    browser = await launchChromium();
    tenant = await h.tenant();
    await createPolicy(h, tenant, { name: 'Cards', action: 'block', conditions: { classification_types: ['CREDIT_CARD'] } });
    const made = await createInteraction(h, tenant, { risk_score: 0.9, classifications: [{ type: 'CREDIT_CARD', value: '4111111111111111', score: 0.9, start: 0, end: 16 }] });
    recordPages = [`/interactions/${made.id}`, `/interactions?fingerprint=${made.classifications[0].fingerprint}`];
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('signs in with the keyboard alone', async () => {
    const { context, page, errors } = await openConsole(browser, base);
    try {
      await page.goto(`${base}/sign-in`);
      // The page is drawn after its script runs: keys pressed before the form exists go nowhere.
      await page.getByLabel('Email').waitFor();
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.type')).toBe('email');
      await page.keyboard.type(tenant.adminEmail);
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.type')).toBe('password');
      await page.keyboard.type('Correct-Horse-42');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), { timeout: 15_000 }).toBe(true);

      // The first Tab reaches "Skip to content", which moves the focus to the page's content.
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
      await page.keyboard.press('Enter');
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('labels every control of every page', async () => {
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail);
      for (const path of [...PAGES, ...recordPages]) {
        await page.goto(`${base}${path}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle');
        expect(await page.evaluate<string[]>(UNLABELLED), path).toEqual([]);
      }
      // The dialog of a classification's "Seen elsewhere", open.
      await page.goto(`${base}${recordPages[0]}`);
      await page.getByRole('button', { name: 'Seen elsewhere' }).click();
      await page.getByRole('dialog', { name: 'Seen elsewhere' }).getByRole('link').waitFor();
      expect(await page.evaluate<string[]>(UNLABELLED), 'Seen elsewhere').toEqual([]);
      // The dialog of a platform's status, open.
      await page.goto(`${base}/ai-apps`);
      await page.getByRole('button', { name: 'Change status of ChatGPT' }).click();
      await page.getByRole('dialog', { name: 'Change status' }).getByRole('button', { name: 'Save status' }).waitFor();
      expect(await page.evaluate<string[]>(UNLABELLED), 'Change status').toEqual([]);
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
