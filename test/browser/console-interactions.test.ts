import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness, TestTenant } from '../helpers/harness.js';
import { classification, createInteraction, createPolicy } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

interface Stored {
  id: string;
  content_hash: string;
  platform_id: string;
  risk_score: number;
  classifications: { type: string; validated?: boolean }[];
}

/** The range the cursor pager shows, e.g. "3–4 of 7". */
const pageRange = (page: Page) => page.getByTestId('page-range').textContent();
const rows = (page: Page) => page.getByRole('table', { name: 'Interactions' }).locator('tbody tr');
/** The interaction ids of the rows shown, from their links. */
const rowIds = (page: Page) =>
  rows(page).locator('td:first-child a').evaluateAll((links) => links.map((a) => a.getAttribute('href')!.split('/').pop()!));
const search = (page: Page) => new URL(page.url()).searchParams;

describe.skipIf(!chromiumFound).each(STORES)('console interactions and alerts [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    // A page's answer can take more than expect.poll's default second on a busy machine.
    vi.setConfig({ expect: { poll: { timeout: 10_000, interval: 50 } } });
    ({ h, base } = await startConsoleService(kind));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** The API's own list, as the admin sees it. */
  async function apiList(tenant: TestTenant, query: Record<string, string | number> = {}) {
    const response = await h.call('GET', '/api/v1/interactions', { token: tenant.adminToken, query: { limit: 500, ...query } });
    expect(response.statusCode).toBe(200);
    return response.json() as { data: Stored[]; total: number };
  }

  it('lists, filters, pages, opens, finds, exports and deletes interactions as an admin', async () => {
    const tenant = await h.tenant();
    const made: Stored[] = [];
    for (const body of [
      { platform_id: 'chatgpt', risk_score: 0.92, user_id: tenant.adminId,
        classifications: [classification('EMAIL', { value: 'jane.doe@example.com' }), classification('CREDIT_CARD')] },
      { platform_id: 'chatgpt', risk_score: 0.15, source: 'proxy' },
      { platform_id: 'chatgpt', risk_score: 0.55, source: 'endpoint_agent', direction: 'inbound', classifications: [classification('PHONE')] },
      { platform_id: 'claude', risk_score: 0.85, source: 'api', classifications: [classification('IBAN')] },
      { platform_id: 'claude', risk_score: 0.3, classifications: [classification('EMAIL')] },
      { platform_id: 'gemini', risk_score: 0.6, interaction_type: 'completion', classifications: [classification('SSN')] },
      { platform_id: 'gemini', risk_score: 0.05 },
    ]) made.push(await createInteraction(h, tenant, body) as Stored);
    const [risky, , , iban, , , harmless] = made as [Stored, Stored, Stored, Stored, Stored, Stored, Stored];

    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/sign-in?next=%2Finteractions');
      await expect.poll(() => pageRange(page)).toBe('1–7 of 7');
      // Newest first, as the API answers.
      expect(await rowIds(page)).toEqual((await apiList(tenant)).data.map((i) => i.id));
      const riskyRow = rows(page).filter({ has: page.locator(`a[href="/interactions/${risky.id}"]`) });
      expect(await riskyRow.textContent()).toMatch(/chatgpt.*0\.92 · high.*EMAIL.*CREDIT_CARD/);
      await screenshot(page, 'interactions');

      // A filter through the form narrows the list and lands in the URL.
      await page.getByLabel('Platform').fill('claude');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => pageRange(page)).toBe('1–2 of 2');
      expect(search(page).get('platform_id')).toBe('claude');
      expect((await rows(page).allTextContents()).every((text) => text.includes('claude'))).toBe(true);

      // A URL with filters (a link from elsewhere) shows that list, and the form shows its filters.
      await page.goto(`${base}/interactions?platform_id=chatgpt&risk_score_min=0.5`);
      await expect.poll(() => pageRange(page)).toBe('1–2 of 2');
      expect(new Set(await rowIds(page))).toEqual(new Set(made.filter((i) => i.platform_id === 'chatgpt' && i.risk_score >= 0.5).map((i) => i.id)));
      expect(await page.getByLabel('Platform').inputValue()).toBe('chatgpt');
      expect(await page.getByLabel('Minimum risk').inputValue()).toBe('0.5');
      await page.goto(`${base}/interactions?classification_type=EMAIL`);
      await expect.poll(() => pageRange(page)).toBe('1–2 of 2');

      // A row's user links to that user's interactions.
      await rows(page).filter({ hasText: 'CREDIT_CARD' }).locator('td').nth(1).getByRole('link').click();
      await expect.poll(() => search(page).get('user_id')).toBe(tenant.adminId);
      await expect.poll(() => pageRange(page)).toBe('1–1 of 1');

      // The date range: from tomorrow there is nothing; from today to today, everything. Clear drops the filters.
      const localDay = (offsetDays: number) => page.evaluate<string, number>((offset) => {
        const d = new Date(Date.now() + offset * 86_400_000);
        return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
      }, offsetDays);
      await page.goto(`${base}/interactions`);
      await page.getByLabel('From').fill(await localDay(1));
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => page.getByText('No interactions match these filters.').isVisible()).toBe(true);
      const tomorrowStart = await page.evaluate<string, string>((day) => new Date(`${day}T00:00`).toISOString(), await localDay(1));
      expect(search(page).get('start_date')).toBe(tomorrowStart);
      await page.getByLabel('From').fill(await localDay(0));
      await page.getByLabel('To').fill(await localDay(0));
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => pageRange(page)).toBe('1–7 of 7');
      expect(search(page).get('end_date')).toMatch(/:59\.999Z$/);
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expect.poll(() => search(page).toString()).toBe('');
      await expect.poll(() => pageRange(page)).toBe('1–7 of 7');

      // The sort choice goes to the URL and the API.
      await page.goto(`${base}/interactions`);
      await page.getByLabel('Sort').selectOption({ label: 'Highest risk first' });
      await expect.poll(() => search(page).get('sort')).toBe('-risk_score');
      await expect.poll(() => rowIds(page)).toEqual((await apiList(tenant, { sort: '-risk_score' })).data.map((i) => i.id));

      // Cursor paging two by two: Next follows next_cursor, Previous walks back.
      const all = (await apiList(tenant)).data.map((i) => i.id);
      await page.goto(`${base}/interactions?limit=2`);
      await expect.poll(() => pageRange(page)).toBe('1–2 of 7');
      expect(await rowIds(page)).toEqual(all.slice(0, 2));
      await page.getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => pageRange(page)).toBe('3–4 of 7');
      expect(search(page).get('cursor')).toBeTruthy();
      expect(await rowIds(page)).toEqual(all.slice(2, 4));
      await page.getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => pageRange(page)).toBe('5–6 of 7');
      await page.getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => pageRange(page)).toBe('7–7 of 7');
      expect(await rowIds(page)).toEqual(all.slice(6));
      expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Previous' }).click();
      await expect.poll(() => pageRange(page)).toBe('5–6 of 7');
      expect(await rowIds(page)).toEqual(all.slice(4, 6));
      await page.getByRole('button', { name: 'Previous' }).click();
      await page.getByRole('button', { name: 'Previous' }).click();
      await expect.poll(() => pageRange(page)).toBe('1–2 of 7');
      expect(search(page).get('cursor')).toBeNull();
      expect(await page.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);

      // A row opens its interaction, with its classifications as the API holds them.
      await page.goto(`${base}/interactions?sort=-risk_score`);
      await rows(page).filter({ hasText: '0.92' }).locator('td').nth(2).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/interactions/${risky.id}`);
      const classifications = page.getByRole('table', { name: 'Classifications' }).locator('tbody tr');
      await expect.poll(() => classifications.count()).toBe(2);
      const stored = (await h.call('GET', `/api/v1/interactions/${risky.id}`, { token: tenant.adminToken })).json() as Stored;
      for (const [index, c] of stored.classifications.entries()) {
        const cells = classifications.nth(index).locator('td');
        expect(await cells.nth(0).textContent()).toBe(c.type);
        expect(await cells.nth(2).textContent()).toBe('90%');
        expect(await cells.nth(4).textContent()).toBe(c.validated === undefined ? 'not checked' : c.validated ? 'validated' : 'not validated');
      }
      expect(await classifications.first().textContent()).toContain('jane.doe@example.com');
      expect(await page.getByTestId('content-hash').textContent()).toBe(risky.content_hash);
      // The alerts section loads on its own request: wait for it rather than read it once.
      await expect.poll(() => page.getByText('No policy matched this interaction.').isVisible()).toBe(true);
      await expect.poll(() => page.getByText('This interaction raised no alert.').isVisible()).toBe(true);

      // Search by content hash: one match opens it; none says so.
      await page.goto(`${base}/interactions`);
      await page.getByLabel('Content hash', { exact: true }).fill(iban.content_hash.toUpperCase());
      await page.getByRole('button', { name: 'Find' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/interactions/${iban.id}`);
      await expect.poll(() => page.getByTestId('content-hash').textContent()).toBe(iban.content_hash);
      await page.goto(`${base}/interactions`);
      await page.getByLabel('Content hash', { exact: true }).fill('0'.repeat(64));
      await page.getByRole('button', { name: 'Find' }).click();
      await expect.poll(() => page.getByText('No interaction has this content hash.').isVisible()).toBe(true);

      // The export downloads the filtered list as CSV: a header and one line per interaction of the total.
      await page.goto(`${base}/interactions?platform_id=chatgpt`);
      await expect.poll(() => pageRange(page)).toBe('1–3 of 3');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export CSV' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^interactions-\d{8}T\d{6}Z\.csv$/);
      const lines = readFileSync((await download.path())!, 'utf8').trim().split('\n');
      expect(lines[0]).toMatch(/^id,timestamp,platform_id,content_hash/);
      expect(lines).toHaveLength(1 + 3);
      expect(new Set(lines.slice(1).map((line) => line.split(',')[0]))).toEqual(
        new Set(made.filter((i) => i.platform_id === 'chatgpt').map((i) => i.id)));

      // An admin deletes an interaction after confirming; the service no longer has it.
      await page.goto(`${base}/interactions/${harmless.id}`);
      await page.getByRole('button', { name: 'Delete interaction' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this interaction?' });
      await dialog.getByRole('button', { name: 'Delete permanently' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/interactions');
      await expect.poll(() => page.getByText('The interaction was deleted.').isVisible()).toBe(true);
      await expect.poll(() => pageRange(page)).toBe('1–6 of 6');
      expect((await h.call('GET', `/api/v1/interactions/${harmless.id}`, { token: tenant.adminToken })).statusCode).toBe(404);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the alert a policy raised, opens its interaction, and resolves it; a viewer cannot', async () => {
    const tenant = await h.tenant();
    const viewer = await h.user(tenant, 'viewer');
    const policy = await createPolicy(h, tenant, {
      name: 'No card numbers to chatbots', action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] },
    }) as { id: string };
    await createPolicy(h, tenant, {
      name: 'Coach on bank details', action: 'coach', severity: 'medium', conditions: { classification_types: ['IBAN'] },
    });
    const first = await createInteraction(h, tenant, {
      platform_id: 'chatgpt', risk_score: 0.9, user_id: viewer.id, content_metadata: { model: 'gpt-4o', length: 812 },
      classifications: [classification('CREDIT_CARD', { value: '4111********1111', start: 10, end: 29 })],
    });
    await createInteraction(h, tenant, { platform_id: 'claude', risk_score: 0.4, classifications: [classification('EMAIL')] });
    const second = await createInteraction(h, tenant, { platform_id: 'gemini', risk_score: 0.7, classifications: [classification('CREDIT_CARD')] });
    await createInteraction(h, tenant, { platform_id: 'mistral', risk_score: 0.5, classifications: [classification('IBAN')] });
    expect(first.policy_decisions).toEqual([expect.objectContaining({ policy_id: policy.id, action: 'block' })]);
    const alertsOf = async () => {
      const response = await h.call('GET', '/api/v1/alerts', { token: tenant.adminToken });
      return (response.json() as { alerts: { id: string; interaction_id: string; status: string; resolved_by: string | null }[] }).alerts;
    };
    const alertOfFirst = (await alertsOf()).find((a) => a.interaction_id === first.id)!;
    expect(alertOfFirst.status).toBe('open');

    const admin = await openConsole(browser, base);
    try {
      const { page } = admin;
      await signIn(page, base, tenant.adminEmail, undefined, '/sign-in?next=%2Falerts');
      const alertRows = page.getByRole('table', { name: 'Alerts' }).locator('tbody tr');
      await expect.poll(() => alertRows.count()).toBe(3);
      expect(await page.getByText('1–3 of 3').isVisible()).toBe(true);
      const firstRow = alertRows.filter({ has: page.locator(`a[href="/interactions/${first.id}"]`) });
      expect(await firstRow.textContent()).toMatch(/high.*No card numbers to chatbots.*open.*View interaction.*Resolve/);
      await screenshot(page, 'alerts');

      // The filters are in the URL.
      await page.getByLabel('Severity').selectOption('medium');
      await expect.poll(() => search(page).get('severity')).toBe('medium');
      await expect.poll(() => alertRows.count()).toBe(1);
      expect(await alertRows.first().textContent()).toMatch(/medium.*Coach on bank details.*open/);
      await page.getByLabel('Severity').selectOption({ label: 'Any' });
      await expect.poll(() => search(page).get('severity')).toBeNull();
      await page.getByLabel('Status').selectOption('resolved');
      await expect.poll(() => search(page).get('status')).toBe('resolved');
      expect(search(page).get('severity')).toBeNull();
      await expect.poll(() => page.getByText('No alerts match these filters.').isVisible()).toBe(true);
      await page.getByLabel('Status').selectOption('open');
      await expect.poll(() => alertRows.count()).toBe(3);

      // The alert's interaction, with the decision and the alert, then back to the alerts.
      await firstRow.getByRole('link', { name: 'View interaction' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/interactions/${first.id}`);
      const decisions = page.getByRole('table', { name: 'Policy decisions' });
      await expect.poll(() => decisions.textContent()).toMatch(/No card numbers to chatbots.*block/);
      expect(await page.getByRole('table', { name: 'Classifications' }).textContent()).toContain('CREDIT_CARD');
      expect(await page.getByRole('table', { name: 'Alerts of this interaction' }).textContent()).toMatch(/No card numbers to chatbots.*high.*Open/);
      await screenshot(page, 'interaction-detail');
      await page.goBack();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/alerts');
      expect(search(page).get('status')).toBe('open');

      // Resolve with a confirmation: the list follows, and so does the service.
      await expect.poll(() => firstRow.count()).toBe(1);
      await firstRow.getByRole('button', { name: 'Resolve' }).click();
      await page.getByRole('dialog', { name: 'Resolve this alert?' }).getByRole('button', { name: 'Resolve alert' }).click();
      await expect.poll(() => page.getByText('is resolved.').isVisible()).toBe(true);
      await expect.poll(() => alertRows.count()).toBe(2);
      const stored = (await h.call('GET', `/api/v1/alerts/${alertOfFirst.id}`, { token: tenant.adminToken })).json() as { status: string; resolved_by: string };
      expect(stored).toMatchObject({ status: 'resolved', resolved_by: tenant.adminId });
      await page.getByLabel('Status').selectOption('resolved');
      await expect.poll(() => alertRows.first().textContent()).toContain('No card numbers to chatbotsresolved');
      expect(await alertRows.count()).toBe(1);
      expect(await alertRows.first().getByRole('link').getAttribute('href')).toBe(`/interactions/${first.id}`);
      expect(await alertRows.getByRole('button', { name: 'Resolve' }).count()).toBe(0);

      expect(admin.foreign()).toEqual([]);
      expect(unexpectedErrors(admin.errors)).toEqual([]);
    } finally {
      await admin.context.close();
    }

    const reader = await openConsole(browser, base);
    try {
      const { page } = reader;
      await signIn(page, base, viewer.email, undefined, '/sign-in?next=%2Falerts');
      const alertRows = page.getByRole('table', { name: 'Alerts' }).locator('tbody tr');
      await expect.poll(() => alertRows.count()).toBe(3);
      const openRow = alertRows.filter({ has: page.locator(`a[href="/interactions/${second.id}"]`) });
      expect(await openRow.textContent()).toMatch(/No card numbers to chatbots.*open/);
      expect(await page.getByRole('button', { name: 'Resolve' }).count()).toBe(0);

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Interactions' }).click();
      await expect.poll(() => pageRange(page)).toBe('1–4 of 4');
      expect(await page.getByRole('button', { name: /delete/i }).count()).toBe(0);
      await rows(page).first().getByRole('link').first().click();
      await expect.poll(() => page.getByRole('table', { name: 'Classifications' }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: /delete/i }).count()).toBe(0);

      expect(reader.foreign()).toEqual([]);
      expect(unexpectedErrors(reader.errors)).toEqual([]);
    } finally {
      await reader.context.close();
    }
  });
});
