import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness, TestTenant } from '../helpers/harness.js';
import { classification, createInteraction, createPolicy } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

const DAY = 24 * 3_600_000;
/** A page redraws after each change; on a loaded two-core machine that can take more than the default second. */
const PATIENT = { timeout: 10_000 };
const [ANA, BEN, CHLOE, DAN] = [
  '0190c2c2-0000-7000-8000-0000000000a1', '0190c2c2-0000-7000-8000-0000000000a2',
  '0190c2c2-0000-7000-8000-0000000000a3', '0190c2c2-0000-7000-8000-0000000000a4',
];

interface Person { user_id: string; score: number; high_risk: number; violations: number; sensitive_types: number; unsanctioned_platforms: number }

const table = (page: Page) => page.getByRole('table', { name: 'People at risk' });
/** Each row's cells: rank, user id, score, high risk, violations, sensitive types, unsanctioned apps. */
const rows = (page: Page) => table(page).locator('tbody tr')
  .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent)));

describe.skipIf(!chromiumFound).each(STORES)('console people at risk [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let tenant: TestTenant;
  /** The period the tests open: the last 7 days, with no end. */
  const start = new Date(Date.now() - 7 * DAY).toISOString();

  const ranking = async (query: Record<string, string> = {}) => {
    const response = await h.call('GET', '/api/v1/people/risk', { token: tenant.adminToken, query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { people: Person[]; total: number };
  };

  beforeAll(async () => {
    ({ h, base } = await startConsoleService(kind));
    browser = await launchChromium();
    tenant = await h.tenant();
    await createPolicy(h, tenant, { name: 'No cards', action: 'block', conditions: { classification_types: ['CREDIT_CARD'] } });
    const sanctioned = await h.call('PUT', '/api/v1/platforms/openai/status', { token: tenant.adminToken, body: { status: 'sanctioned' } });
    expect(sanctioned.statusCode).toBe(200);
    // Before the period: counts in the whole history only.
    h.clock.advance(-30 * DAY);
    await createInteraction(h, tenant, { platform_id: 'deepseek', user_id: BEN, risk_score: 0.9 });
    h.clock.reset();
    h.clock.advance(-DAY);
    for (const [platform_id, user_id, risk_score, types] of [
      ['openai', ANA, 0.9, ['CREDIT_CARD']], ['openai', ANA, 0.8, ['EMAIL']], ['deepseek', ANA, 0.1, []],
      ['acme-notes-ai', BEN, 0.75, []], ['acme-notes-ai', BEN, 0.7, []],
      ['openai', CHLOE, 0.2, []], // only a sanctioned app, safely: not at risk
      ['mistral', DAN, 0.1, []], ['perplexity', DAN, 0.1, []],
    ] as const) {
      await createInteraction(h, tenant, { platform_id, user_id, risk_score, classifications: types.map((type) => classification(type)) });
      h.clock.advance(600_000);
    }
    h.clock.reset();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('ranks the people in the API\'s order with its figures, each opening their interactions of the period', async () => {
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, `/people-at-risk?start_date=${encodeURIComponent(start)}`);
      await table(page).waitFor();
      const expected = await ranking({ start_date: start });
      expect(expected.people.map((p) => p.user_id)).toEqual([ANA, DAN, BEN]);
      // The period counts: Ben's app of a month ago is not in it, but is in the whole history.
      expect(expected.people.find((p) => p.user_id === BEN)).toMatchObject({ score: 12, unsanctioned_platforms: 1 });
      expect((await ranking()).people.find((p) => p.user_id === BEN)).toMatchObject({ unsanctioned_platforms: 2 });

      await expect.poll(() => rows(page), PATIENT).toEqual(expected.people.map((p, index) => [
        String(index + 1), p.user_id, String(p.score), String(p.high_risk), String(p.violations), String(p.sensitive_types),
        String(p.unsanctioned_platforms),
      ]));
      expect(expected.people[0]).toEqual({ user_id: ANA, score: 24, high_risk: 2, violations: 1, sensitive_types: 2, unsanctioned_platforms: 1 });
      expect(await page.getByRole('heading', { name: 'How the score is made' }).isVisible()).toBe(true);
      expect(await page.getByText('score = high-risk + 2 × violations + 5 × sensitive data types + 10 × unsanctioned apps').isVisible()).toBe(true);
      await screenshot(page, 'people-at-risk');

      // The user id opens the list of that person's interactions over the same period.
      await table(page).getByRole('link', { name: ANA }).click();
      await expect.poll(() => new URL(page.url()).pathname, PATIENT).toBe('/interactions');
      const query = new URL(page.url()).searchParams;
      expect([query.get('user_id'), query.get('start_date')]).toEqual([ANA, start]);
      const listed = await h.call('GET', '/api/v1/interactions', { token: tenant.adminToken, query: { user_id: ANA, start_date: start } });
      expect(listed.json().total).toBe(3);
      await expect.poll(() => page.locator('main tbody tr').count(), PATIENT).toBe(3);
      expect(await page.getByLabel('User ID').inputValue()).toBe(ANA);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps the period in the URL when it changes, and a viewer reads the same ranking', async () => {
    const viewer = await h.user(tenant, 'viewer');
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, viewer.email, undefined, '/people-at-risk');
      await table(page).waitFor();
      // The default period (the last 7 days) holds the same people as the test's.
      await expect.poll(async () => (await rows(page)).map((cells) => cells[1]), PATIENT).toEqual([ANA, DAN, BEN]);

      await page.getByLabel('From').fill('2020-01-01');
      await expect.poll(() => new URL(page.url()).searchParams.get('start_date'), PATIENT).toBe(new Date(2020, 0, 1).toISOString());
      // From 2020 on, the whole history: Ben's older app counts now.
      const whole = await ranking({ start_date: new Date(2020, 0, 1).toISOString() });
      await expect.poll(async () => (await rows(page)).map((cells) => [cells[1], cells[2]]), PATIENT)
        .toEqual(whole.people.map((p) => [p.user_id, String(p.score)]));
      await page.reload();
      await expect.poll(() => page.getByLabel('From').inputValue(), PATIENT).toBe('2020-01-01');
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says so for a period without anyone at risk, and shows the API\'s sentence for a period it refuses', async () => {
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/people-at-risk?start_date=2020-01-01T00:00:00.000Z&end_date=2020-01-31T23:59:59.999Z');
      await expect.poll(() => page.getByText('No one at risk in this period').isVisible(), PATIENT).toBe(true);
      expect(await table(page).count()).toBe(0);

      const bad = { start_date: '2026-03-02T00:00:00.000Z', end_date: '2026-03-01T00:00:00.000Z' };
      const refused = await h.call('GET', '/api/v1/people/risk', { token: tenant.adminToken, query: bad });
      expect([refused.statusCode, refused.json().code]).toEqual([400, 'validation_error']);
      await page.goto(`${base}/people-at-risk?${new URLSearchParams(bad).toString()}`);
      const alert = page.getByRole('alert');
      await expect.poll(() => alert.textContent(), PATIENT).toContain(refused.json().error);
      expect(await alert.textContent()).toContain(refused.json().details[0].message);
      expect(await page.getByText('Change the period with From and To').isVisible()).toBe(true);
      expect(await table(page).count()).toBe(0);
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
