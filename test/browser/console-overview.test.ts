import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness, TestTenant } from '../helpers/harness.js';
import { classification, createInteraction } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const USER_A = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const USER_B = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a6c';

describe.skipIf(!chromiumFound).each(STORES)('console overview [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let tenant: TestTenant;

  beforeAll(async () => {
    ({ h, base } = await startConsoleService(kind));
    browser = await launchChromium();
    tenant = await h.tenant();
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    for (let i = 0; i < 3; i += 1) {
      await createInteraction(h, tenant, { platform_id: 'chatgpt', user_id: USER_A, risk_score: 0.9, timestamp: at(90 + i), classifications: [classification('CREDIT_CARD')] });
    }
    for (let i = 0; i < 2; i += 1) {
      await createInteraction(h, tenant, { platform_id: 'claude', user_id: USER_B, risk_score: 0.3, timestamp: at(30 + i), classifications: [classification('EMAIL')] });
      await createInteraction(h, tenant, { platform_id: 'copilot', user_id: USER_A, risk_score: 0.75, timestamp: at(60 + i) });
    }
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('answers the dashboard questions with the exact numbers, each opening the list behind it', async () => {
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail);
      await expect.poll(() => page.getByRole('link', { name: 'Interactions: 7' }).isVisible()).toBe(true);
      await expect.poll(() => page.getByRole('link', { name: 'High risk (score ≥ 0.6): 5' }).isVisible()).toBe(true);
      expect(await page.getByRole('heading', { name: 'Interactions per day by platform' }).isVisible()).toBe(true);
      expect(await page.locator('canvas').count()).toBe(3);
      for (const platform of ['chatgpt', 'claude', 'copilot']) {
        expect(await page.getByRole('link', { name: platform, exact: true }).isVisible()).toBe(true);
      }
      expect(await page.getByRole('link', { name: 'CREDIT_CARD: 3' }).isVisible()).toBe(true);
      const topUser = page.getByRole('row', { name: new RegExp(USER_A) });
      expect(await topUser.getByRole('cell').allTextContents()).toEqual([USER_A, '5', '5']);
      expect(await page.getByRole('row', { name: new RegExp(USER_B) }).count()).toBe(0);
      await screenshot(page, 'overview');

      // A risk band opens the list of exactly its interactions, over the same dates.
      await page.getByRole('link', { name: '0.8-1: 3' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/interactions');
      const query = new URL(page.url()).searchParams;
      expect(query.get('risk_score_min')).toBe('0.8');
      expect(query.get('risk_score_max')).toBe('1');
      expect(query.get('start_date')).toBeTruthy();
      await expect.poll(() => page.locator('main tbody tr').count()).toBe(3);

      // A band below 1 stops just under its max: the list counts exactly the band's rows.
      await page.goBack();
      await page.getByRole('link', { name: '0.2-0.4: 2' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('risk_score_min')).toBe('0.2');
      const listed = await h.call('GET', '/api/v1/interactions', {
        token: tenant.adminToken, query: Object.fromEntries(new URL(page.url()).searchParams),
      });
      expect(listed.json().total).toBe(2);

      // The top user's high-risk count opens their high-risk interactions.
      await page.goBack();
      await page.getByRole('row', { name: new RegExp(USER_A) }).getByRole('link', { name: '5' }).first().click();
      await expect.poll(() => new URL(page.url()).searchParams.get('user_id')).toBe(USER_A);
      expect(new URL(page.url()).searchParams.get('risk_score_min')).toBe('0.7');
      await expect.poll(() => page.locator('main tbody tr').count()).toBe(5);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows hours for a short range and an empty state for a period without data', async () => {
    const viewer = await h.user(tenant, 'viewer');
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      const today = new Date();
      const start = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1).toISOString();
      await signIn(page, base, viewer.email, undefined, `/sign-in?next=${encodeURIComponent(`/?start_date=${start}`)}`);
      await expect.poll(() => page.getByRole('heading', { name: 'Interactions per hour by platform' }).isVisible()).toBe(true);
      await expect.poll(() => page.getByRole('link', { name: 'Interactions: 7' }).isVisible()).toBe(true);

      await page.goto(`${base}/?start_date=2020-01-01T00:00:00.000Z&end_date=2020-01-31T23:59:59.999Z`);
      await expect.poll(() => page.getByText('No interactions in this period').isVisible()).toBe(true);
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
