import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness } from '../helpers/harness.js';
import { classification, createInteraction } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

interface Stored {
  id: string;
  timestamp: string;
  classifications: { type: string; value: string; fingerprint?: string }[];
}

const CARD = '4111 1111 1111 1111';
const CARD_DIGITS = '4111111111111111';
const OTHER_CARD = '5555 5555 5555 4444';

const pageRange = (page: Page) => page.getByTestId('page-range').textContent();
const rowIds = (page: Page) => page.getByRole('table', { name: 'Interactions' }).locator('tbody tr td:first-child a')
  .evaluateAll((links) => links.map((a) => a.getAttribute('href')!.split('/').pop()!));
const search = (page: Page) => new URL(page.url()).searchParams;
/** The classification rows of the interaction page holding a value (as shown). */
const classificationRow = (page: Page, value: string) =>
  page.getByRole('table', { name: 'Classifications' }).locator('tbody tr').filter({ hasText: value });
const card = (value: string) => classification('CREDIT_CARD', { value, start: 0, end: value.length });

/** What a sightings summary shows: interactions, users, first and last seen. */
async function shownSightings(scope: Locator) {
  await scope.getByTestId('seen-interactions').waitFor();
  return {
    interactions: await scope.getByTestId('seen-interactions').textContent(),
    users: await scope.getByTestId('seen-users').textContent(),
    first: await scope.getByTestId('seen-first').textContent(),
    last: await scope.getByTestId('seen-last').textContent(),
  };
}

/** A time as the console writes an interaction's (with seconds, in the browser's locale and zone). */
const asShown = (page: Page, iso: string) => page.evaluate<string, string>((value) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(value)), iso);

describe.skipIf(!chromiumFound).each(STORES)('console detected values [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    vi.setConfig({ expect: { poll: { timeout: 10_000, interval: 50 } } });
    ({ h, base } = await startConsoleService(kind));
    browser = await launchChromium();
  });
  afterAll(async () => {
    vi.resetConfig();
    await browser?.close();
    await h?.close();
  });

  it('shows where a value was seen, lists those interactions, looks a value up, and masks new values once set', async () => {
    const tenant = await h.tenant();
    const viewer = await h.user(tenant, 'viewer');
    // One card number for two users, written two ways; another card and an email beside it.
    const first = await createInteraction(h, tenant, {
      platform_id: 'chatgpt', risk_score: 0.9, user_id: tenant.adminId,
      classifications: [card(CARD), classification('EMAIL', { value: 'jane.doe@example.com' })],
    }) as Stored;
    const second = await createInteraction(h, tenant, {
      platform_id: 'claude', risk_score: 0.8, user_id: viewer.id, classifications: [card('4111-1111-1111-1111')],
    }) as Stored;
    const other = await createInteraction(h, tenant, { platform_id: 'gemini', user_id: viewer.id, classifications: [card(OTHER_CARD)] }) as Stored;
    await createInteraction(h, tenant, { platform_id: 'mistral', risk_score: 0.1 });
    const fingerprint = first.classifications[0]!.fingerprint!;
    expect(second.classifications[0]!.fingerprint).toBe(fingerprint);
    expect(other.classifications[0]!.fingerprint).not.toBe(fingerprint);
    const [older, newer] = [first, second].sort((a, b) => a.timestamp.localeCompare(b.timestamp)) as [Stored, Stored];

    const { context, page, requests, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, `/interactions/${first.id}`);

      // "Seen elsewhere" on the card: two interactions, two users, first and last seen.
      await classificationRow(page, CARD).getByRole('button', { name: 'Seen elsewhere' }).click();
      const dialog = page.getByRole('dialog', { name: 'Seen elsewhere' });
      expect(await shownSightings(dialog)).toEqual({
        interactions: '2', users: '2', first: await asShown(page, older.timestamp), last: await asShown(page, newer.timestamp),
      });
      await screenshot(page, 'seen-elsewhere');

      // Its link opens the list filtered by the fingerprint: exactly those two, and a chip that removes the filter.
      await dialog.getByRole('link', { name: 'Open these 2 interactions' }).click();
      await expect.poll(() => search(page).get('fingerprint')).toBe(fingerprint);
      await expect.poll(() => pageRange(page)).toBe('1–2 of 2');
      expect(new Set(await rowIds(page))).toEqual(new Set([first.id, second.id]));
      const chip = page.getByRole('group', { name: 'Active filters' });
      const shortened = await chip.getByTestId('fingerprint-filter').textContent();
      expect(shortened).toMatch(/^fp_.+….+$/);
      expect(shortened!.length).toBeLessThan(fingerprint.length);
      expect(fingerprint.startsWith(shortened!.split('…')[0]!) && fingerprint.endsWith(shortened!.split('…')[1]!)).toBe(true);
      // Another filter applied on top keeps the fingerprint.
      await page.getByLabel('Platform').fill('claude');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => pageRange(page)).toBe('1–1 of 1');
      expect(search(page).get('fingerprint')).toBe(fingerprint);
      expect(await rowIds(page)).toEqual([second.id]);
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expect.poll(() => search(page).toString()).toBe('');
      await page.goto(`${base}/interactions?fingerprint=${fingerprint}`);
      await expect.poll(() => pageRange(page)).toBe('1–2 of 2');
      await chip.getByRole('button', { name: 'Remove the detected value filter' }).click();
      await expect.poll(() => search(page).get('fingerprint')).toBeNull();
      await expect.poll(() => pageRange(page)).toBe('1–4 of 4');
      expect(await chip.count()).toBe(0);

      // The lookup, with the number written without spaces: the same figures, and the same list.
      const lookup = page.getByRole('search', { name: 'Find a detected value' });
      await lookup.getByLabel('Value type').fill('CREDIT_CARD');
      await lookup.getByLabel('Value', { exact: true }).fill(CARD_DIGITS);
      await lookup.getByRole('button', { name: 'Look up' }).click();
      const result = lookup.locator('xpath=..'); // the lookup's card: its form and its answer
      expect(await shownSightings(result)).toEqual({
        interactions: '2', users: '2', first: await asShown(page, older.timestamp), last: await asShown(page, newer.timestamp),
      });
      await result.getByRole('link', { name: 'Open these 2 interactions' }).click();
      await expect.poll(() => search(page).get('fingerprint')).toBe(fingerprint);
      // The unfiltered list (4 rows) holds both ids too: wait for the filtered one's range.
      await expect.poll(() => pageRange(page)).toBe('1–2 of 2');
      expect(new Set(await rowIds(page))).toEqual(new Set([first.id, second.id]));
      await screenshot(page, 'value-lookup');
      // A value never seen says so.
      await lookup.getByLabel('Value', { exact: true }).fill('4000 0000 0000 0002');
      await lookup.getByRole('button', { name: 'Look up' }).click();
      await expect.poll(() => result.getByText('No interaction holds this value.').isVisible()).toBe(true);
      // The typed values went in the lookup's body only: not in an address, nor in the tab's storage.
      const lookups = requests.filter((r) => r.url().endsWith('/api/v1/signals/lookup'));
      expect(lookups.map((r) => [r.method(), JSON.parse(r.postData() ?? '{}').value])).toEqual([['POST', CARD_DIGITS], ['POST', '4000 0000 0000 0002']]);
      for (const typed of [CARD_DIGITS, '4000000000000002', '4000%200000']) {
        expect(requests.filter((r) => r.url().includes(typed))).toEqual([]);
      }
      const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
      expect(stored).not.toContain(CARD_DIGITS);
      expect(stored).not.toContain('4000 0000');

      // The admin masks new values: an interaction made afterwards shows only the last 4 digits,
      // the earlier ones their value as sent; both share the fingerprint.
      await page.goto(`${base}/settings`);
      const keep = page.getByRole('radio', { name: 'Keep values (encrypted at rest)' });
      const mask = page.getByRole('radio', { name: 'Mask values: keep only the last 4 characters' });
      await expect.poll(() => keep.isChecked()).toBe(true);
      expect(await page.getByText('Applies to interactions recorded after the change', { exact: false }).isVisible()).toBe(true);
      await mask.check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Settings saved.' }).isVisible()).toBe(true);
      expect((await h.call('GET', '/api/v1/tenant', { token: tenant.adminToken })).json()).toMatchObject({ signal_values: 'mask' });
      const masked = await createInteraction(h, tenant, { platform_id: 'chatgpt', user_id: tenant.adminId, classifications: [card(CARD)] }) as Stored;
      expect(masked.classifications[0]).toMatchObject({ value: '************1111', fingerprint });

      await page.goto(`${base}/interactions/${masked.id}`);
      await expect.poll(() => classificationRow(page, '************1111').count()).toBe(1);
      expect(await page.getByRole('table', { name: 'Classifications' }).textContent()).not.toContain(CARD);
      await classificationRow(page, '************1111').getByRole('button', { name: 'Seen elsewhere' }).click();
      expect(await shownSightings(page.getByRole('dialog', { name: 'Seen elsewhere' }))).toMatchObject({ interactions: '3', users: '2' });
      await page.goto(`${base}/interactions/${first.id}`);
      await expect.poll(() => classificationRow(page, CARD).count()).toBe(1);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }

    // A viewer reads the setting, with no control to change it.
    const reader = await openConsole(browser, base);
    try {
      await signIn(reader.page, base, viewer.email, undefined, '/settings');
      const values = reader.page.getByRole('region', { name: 'Organization settings' });
      await expect.poll(() => values.textContent()).toContain('Mask values: keep only the last 4 characters');
      expect(await values.textContent()).toContain('Applies to interactions recorded after the change');
      expect(await reader.page.getByRole('radio').count()).toBe(0);
      expect(await reader.page.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
      expect(reader.foreign()).toEqual([]);
      expect(unexpectedErrors(reader.errors)).toEqual([]);
    } finally {
      await reader.context.close();
    }
  });
});
