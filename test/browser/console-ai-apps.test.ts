import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness, TestTenant } from '../helpers/harness.js';
import { createInteraction } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const DAY = 24 * 3_600_000;
/** A page redraws after each change; on a loaded two-core machine that can take more than the default second. */
const PATIENT = { timeout: 10_000 };
const [ANA, BEN, CHLOE] = ['0190b1b1-0000-7000-8000-0000000000a1', '0190b1b1-0000-7000-8000-0000000000a2', '0190b1b1-0000-7000-8000-0000000000a3'];
/** A platform the catalog lacks. */
const NEW_APP = 'acme-notes-ai';

interface ApiPlatform { id: string; name: string | null; vendor: string | null; category: string | null; risk_tier: string | null; status: string; note: string; catalog: boolean; sources: string[] }
interface ApiUsage { platform_id: string; interactions: number; users: number; high_risk: number; first_seen: string; last_seen: string }

/** The catalog's table, and the newly discovered one. */
const appsTable = (page: Page) => page.getByRole('table', { name: 'AI apps', exact: true });
const discoveredTable = (page: Page) => page.getByRole('table', { name: 'Newly discovered AI apps' });
const appRow = (table: Locator, id: string) => table.locator(`tr[data-platform-id="${id}"]`);
const rowIds = (table: Locator) => table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-platform-id')));
/** The row's cells, the name's header first: name, vendor, category, risk tier, trains, regions, sources, interactions, users, high risk, first and last seen, status. */
const cells = (row: Locator) => row.locator('th, td').allTextContents();

describe.skipIf(!chromiumFound).each(STORES)('console AI apps [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let tenant: TestTenant;
  /** The period the tests open: the last 30 days, with no end. */
  const start = new Date(Date.now() - 30 * DAY).toISOString();
  const path = `/ai-apps?start_date=${encodeURIComponent(start)}`;

  const platforms = async (token = tenant.adminToken): Promise<ApiPlatform[]> => {
    const response = await h.call('GET', '/api/v1/platforms', { token });
    expect(response.statusCode).toBe(200);
    return response.json().platforms;
  };
  const usage = async (query: Record<string, string> = {}): Promise<ApiUsage[]> => {
    const response = await h.call('GET', '/api/v1/platforms/usage', { token: tenant.adminToken, query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().platforms;
  };

  beforeAll(async () => {
    ({ h, base } = await startConsoleService(kind));
    browser = await launchChromium();
    tenant = await h.tenant();
    // Before the period: Mistral (used again in it, so not new) and Perplexity (not used in it).
    h.clock.advance(-60 * DAY);
    await createInteraction(h, tenant, { platform_id: 'mistral', user_id: ANA, risk_score: 0.9 });
    await createInteraction(h, tenant, { platform_id: 'perplexity', user_id: BEN, risk_score: 0.1 });
    h.clock.reset();
    h.clock.advance(-2 * DAY);
    for (const [platform_id, user_id, risk_score] of [
      ['openai', ANA, 0.9], ['openai', ANA, 0.8], ['openai', BEN, 0.2], ['openai', CHLOE, 0.75],
      ['anthropic', BEN, 0.1], ['anthropic', BEN, 0.3], ['mistral', CHLOE, 0.7],
      [NEW_APP, CHLOE, 0.95], [NEW_APP, ANA, 0.2],
    ] as const) {
      await createInteraction(h, tenant, { platform_id, user_id, risk_score });
      h.clock.advance(3_600_000);
    }
    await createInteraction(h, tenant, { platform_id: 'openai', risk_score: 0.5 }); // no user: counts for no one
    h.clock.reset();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('shows the catalog with its facts, the period\'s usage as the API counts it, and the platforms new in the period', async () => {
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, path);
      await appRow(appsTable(page), 'openai').waitFor();
      const listed = await platforms();
      expect(listed.length).toBeGreaterThan(150);
      await expect.poll(() => page.locator('.pager').textContent(), PATIENT).toContain(`of ${listed.length}`);

      // The catalog's facts, sources as links.
      const openai = listed.find((p) => p.id === 'openai')!;
      const chatgpt = appRow(appsTable(page), 'openai');
      expect((await cells(chatgpt)).slice(0, 4)).toEqual(['ChatGPT openai', 'OpenAI', 'Assistant', 'High']);
      expect(await chatgpt.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href'))))
        .toEqual(expect.arrayContaining(openai.sources));

      // Usage: every platform the API counts in the period, and only those, with its figures.
      const used = await usage({ start_date: start });
      expect(used.map((u) => u.platform_id).sort()).toEqual([NEW_APP, 'anthropic', 'mistral', 'openai']);
      await page.getByLabel('Used in the period only').check();
      await expect.poll(() => new URL(page.url()).searchParams.get('used'), PATIENT).toBe('1');
      await expect.poll(async () => (await rowIds(appsTable(page))).sort(), PATIENT).toEqual(used.map((u) => u.platform_id).sort());
      const format = (iso: string) => page.evaluate((value) => new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' })
        .format(new Date(value)), iso);
      for (const u of used) {
        expect((await cells(appRow(appsTable(page), u.platform_id))).slice(7, 11), u.platform_id).toEqual([
          String(u.interactions), String(u.users), String(u.high_risk), `${await format(u.first_seen)}${await format(u.last_seen)}`,
        ]);
      }
      expect(used.find((u) => u.platform_id === 'openai')).toMatchObject({ interactions: 5, users: 3, high_risk: 3 });

      // A platform the catalog lacks is listed, marked.
      expect((await cells(appRow(appsTable(page), NEW_APP)))[0]).toBe(`${NEW_APP} not in catalog`);
      expect(listed.find((p) => p.id === NEW_APP)).toMatchObject({ catalog: false, name: null });

      // Newly discovered: first seen in the period (by the whole history), the catalog's lacking ones marked.
      const allTime = await usage();
      const fresh = allTime.filter((u) => u.first_seen >= start).map((u) => u.platform_id);
      expect(fresh.sort()).toEqual([NEW_APP, 'anthropic', 'openai']);
      await expect.poll(async () => (await rowIds(discoveredTable(page))).sort(), PATIENT).toEqual(fresh);
      expect(await appRow(discoveredTable(page), NEW_APP).getByText('not in catalog').isVisible()).toBe(true);
      expect(await appRow(discoveredTable(page), 'openai').getByText('not in catalog').count()).toBe(0);
      await screenshot(page, 'ai-apps');

      // The count opens the platform's interactions of the period.
      await appRow(appsTable(page), 'anthropic').getByRole('link', { name: '2', exact: true }).click();
      await expect.poll(() => new URL(page.url()).pathname, PATIENT).toBe('/interactions');
      const query = new URL(page.url()).searchParams;
      expect([query.get('platform_id'), query.get('start_date')]).toEqual(['anthropic', start]);
      await expect.poll(() => page.locator('main tbody tr').count(), PATIENT).toBe(2);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('filters the catalog by search, category, status and risk tier, kept in the URL', async () => {
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, path);
      await appRow(appsTable(page), 'openai').waitFor();
      const listed = await platforms();
      const filters = page.getByRole('search', { name: 'Filter AI apps' });

      // Typed key by key: none is lost while the URL follows.
      await filters.getByLabel('Search').pressSequentially('mistral');
      await expect.poll(() => new URL(page.url()).searchParams.get('q'), PATIENT).toBe('mistral');
      // By name, vendor or id (a platform the catalog lacks has only its id).
      const byMistral = listed.filter((p) => [p.name, p.vendor, p.id].some((text) => text?.toLowerCase().includes('mistral')));
      expect(byMistral.length).toBeGreaterThan(1);
      await expect.poll(async () => (await rowIds(appsTable(page))).sort(), PATIENT).toEqual(byMistral.map((p) => p.id).sort());
      await filters.getByLabel('Search').fill('');

      await filters.getByLabel('Category').selectOption('assistant');
      await filters.getByLabel('Risk tier').selectOption('high');
      const assistantHigh = listed.filter((p) => p.category === 'assistant' && p.risk_tier === 'high').map((p) => p.id);
      expect(assistantHigh.length).toBeGreaterThan(1);
      await expect.poll(async () => (await rowIds(appsTable(page))).sort(), PATIENT).toEqual(assistantHigh.sort());
      const url = new URL(page.url()).searchParams;
      expect([url.get('category'), url.get('risk_tier'), url.get('start_date')]).toEqual(['assistant', 'high', start]);

      // A reload opens the same list.
      await page.reload();
      await expect.poll(async () => (await rowIds(appsTable(page))).sort(), PATIENT).toEqual(assistantHigh.sort());
      expect(await filters.getByLabel('Category').inputValue()).toBe('assistant');

      await filters.getByLabel('Category').selectOption('');
      await filters.getByLabel('Risk tier').selectOption('');
      await filters.getByLabel('Status').selectOption('blocked');
      await expect.poll(() => page.getByText('No AI app matches these filters.').isVisible(), PATIENT).toBe(true);
      // Back returns to the previous filters, controls included.
      await page.goBack();
      await expect.poll(() => filters.getByLabel('Status').inputValue(), PATIENT).toBe('');
      await expect.poll(async () => (await rowIds(appsTable(page))).length, PATIENT).toBeGreaterThan(0);
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an admin sets a status with a note: saved, audited, and shown', async () => {
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, path);
      const row = appRow(appsTable(page), 'openai');
      await row.getByRole('button', { name: 'Change status of ChatGPT' }).click();
      const dialog = page.getByRole('dialog', { name: 'Change status' });
      expect(await dialog.getByLabel('Unsanctioned').isChecked()).toBe(true);
      await dialog.getByLabel('Blocked').check();
      await dialog.getByLabel('Note (optional)').fill('Trains on prompts by default');
      await dialog.getByRole('button', { name: 'Save status' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'ChatGPT is now blocked.' }).isVisible(), PATIENT).toBe(true);
      await expect.poll(async () => (await cells(row))[11], PATIENT).toContain('Blocked');
      expect((await cells(row))[11]).toContain('Trains on prompts by default');

      expect((await platforms()).find((p) => p.id === 'openai')).toMatchObject({ status: 'blocked', note: 'Trains on prompts by default' });
      const audit = await h.call('GET', '/api/v1/audit-log', { token: tenant.adminToken, query: { action: 'platform.updated' } });
      expect(audit.json().entries).toEqual([expect.objectContaining({
        target_id: 'openai', actor_id: tenant.adminId,
        details: expect.objectContaining({ status: { from: 'unsanctioned', to: 'blocked' } }),
      })]);

      // A platform the catalog lacks gets a status too; the status filter finds both.
      await appRow(appsTable(page), NEW_APP).getByRole('button', { name: `Change status of ${NEW_APP}` }).click();
      await dialog.getByLabel('Sanctioned', { exact: true }).check();
      await dialog.getByRole('button', { name: 'Save status' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: `${NEW_APP} is now sanctioned.` }).isVisible(), PATIENT).toBe(true);
      expect((await platforms()).find((p) => p.id === NEW_APP)).toMatchObject({ status: 'sanctioned', note: '' });
      await page.getByRole('search', { name: 'Filter AI apps' }).getByLabel('Status').selectOption('blocked');
      await expect.poll(() => rowIds(appsTable(page)), PATIENT).toEqual(['openai']);
      // The usage's status follows: the discovered table reads it from the list.
      await expect.poll(() => appRow(discoveredTable(page), NEW_APP).textContent(), PATIENT).toContain('Sanctioned');
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a viewer reads the statuses but has no control to change them, and the API refuses the viewer', async () => {
    const viewer = await h.user(tenant, 'viewer');
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, viewer.email, undefined, path);
      const row = appRow(appsTable(page), 'anthropic');
      await row.waitFor();
      expect((await cells(row))[11]).toMatch(/^(Sanctioned|Unsanctioned|Blocked)/);
      expect(await page.getByText('Statuses are decided by your organization’s admins.').isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: /^Change status/ }).count()).toBe(0);
      expect(await page.getByRole('dialog').count()).toBe(0);

      const before = (await platforms(viewer.token)).find((p) => p.id === 'anthropic')!.status;
      const refused = await h.call('PUT', '/api/v1/platforms/anthropic/status', { token: viewer.token, body: { status: 'sanctioned' } });
      expect([refused.statusCode, refused.json().code]).toEqual([403, 'forbidden']);
      expect((await platforms()).find((p) => p.id === 'anthropic')!.status).toBe(before);
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows an empty period as such, and the API\'s sentence for a period it refuses', async () => {
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/ai-apps?start_date=2020-01-01T00:00:00.000Z&end_date=2020-01-31T23:59:59.999Z&q=chatgpt');
      await expect.poll(() => page.getByText('No AI app was used for the first time in this period.').isVisible(), PATIENT).toBe(true);
      expect((await cells(appRow(appsTable(page), 'openai'))).slice(7, 11)).toEqual(['0', '0', '0', '—']);

      const bad = { start_date: '2026-03-02T00:00:00.000Z', end_date: '2026-03-01T00:00:00.000Z' };
      const refused = await h.call('GET', '/api/v1/platforms/usage', { token: tenant.adminToken, query: bad });
      expect(refused.statusCode).toBe(400);
      await page.goto(`${base}/ai-apps?${new URLSearchParams(bad).toString()}`);
      await expect.poll(() => page.getByRole('alert').textContent(), PATIENT).toContain(refused.json().error);
      expect(await appsTable(page).count()).toBe(0);
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
