import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness, TestTenant } from '../helpers/harness.js';
import { classification, createInteraction, createPolicy } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

interface StoredPolicy {
  id: string;
  name: string;
  action: string;
  severity: string;
  enabled: boolean;
  description: string;
  conditions: Record<string, unknown>;
  message: string | null;
}

async function storedPolicy(h: Harness, t: TestTenant, name: string): Promise<StoredPolicy | undefined> {
  const response = await h.call('GET', '/api/v1/policies', { token: t.adminToken, query: { limit: 500 } });
  expect(response.statusCode).toBe(200);
  return (response.json().policies as StoredPolicy[]).find((p) => p.name === name);
}

const row = (page: Page, name: string) => page.getByRole('row').filter({ hasText: name });

describe.skipIf(!chromiumFound).each(STORES)('console policies [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    ({ h, base } = await startConsoleService(kind));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('an admin creates, edits, disables, enables, previews and deletes a policy through the form', async () => {
    const tenant = await h.tenant();
    const name = 'No personal data to chatbots';
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/policies');
      await expect.poll(() => page.getByText('No policy yet.').isVisible()).toBe(true);

      // Create, with a condition of every kind.
      await page.getByRole('link', { name: 'New policy' }).click();
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('Description').fill('Emails and IBANs pasted into chatbots');
      await page.getByLabel('Action', { exact: true }).selectOption('coach');
      await page.getByLabel('Severity').selectOption('high');
      await page.getByLabel('Platforms').fill('chatgpt, claude');
      await page.getByLabel('EMAIL', { exact: true }).check();
      await page.getByLabel('IBAN', { exact: true }).check();
      await page.getByLabel('Other data types').fill('CUSTOMER_ID');
      await page.getByLabel('Minimum risk score').fill('0.5');
      await page.getByLabel('Outbound (sent to the AI)').check();
      await page.getByLabel('Browser extension').check();
      await page.getByLabel('Prompt', { exact: true }).check();
      await page.getByLabel(/^Unsanctioned apps/).check();
      await page.getByLabel('Message to the user').fill('Remove personal data before sending it to an AI app.');
      await page.getByRole('button', { name: 'Create policy' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: `Policy “${name}” created.` }).isVisible()).toBe(true);
      await expect.poll(() => row(page, name).textContent()).toContain('Platform: chatgpt, claude');
      expect(await row(page, name).textContent()).toContain('Risk ≥ 0.5');

      const created = await storedPolicy(h, tenant, name);
      expect(created).toMatchObject({
        action: 'coach', severity: 'high', enabled: true, description: 'Emails and IBANs pasted into chatbots',
        conditions: {
          platform_ids: ['chatgpt', 'claude'], classification_types: ['EMAIL', 'IBAN', 'CUSTOMER_ID'], min_risk_score: 0.5,
          directions: ['outbound'], sources: ['browser_extension'], interaction_types: ['prompt'], platform_statuses: ['unsanctioned'],
        },
        message: 'Remove personal data before sending it to an AI app.',
      });
      expect(created!.conditions).not.toHaveProperty('validated_only');

      // Edit: the form opens with the stored values; conditions are replaced whole.
      await page.getByRole('link', { name: `Edit ${name}` }).click();
      await expect.poll(() => page.getByLabel('Minimum risk score').inputValue()).toBe('0.5');
      expect(await page.getByLabel('IBAN', { exact: true }).isChecked()).toBe(true);
      expect(await page.getByLabel('Other data types').inputValue()).toBe('CUSTOMER_ID');
      expect(await page.getByLabel('Message to the user').inputValue()).toBe('Remove personal data before sending it to an AI app.');
      await page.getByLabel('Message to the user').fill('');
      await page.getByLabel('Action', { exact: true }).selectOption('block');
      await page.getByLabel('Minimum risk score').fill('0.6');
      await page.getByLabel('IBAN', { exact: true }).uncheck();
      await page.getByLabel('Other data types').fill('');
      await page.getByLabel('Proxy', { exact: true }).check();
      await page.getByLabel(/^Validated detections only/).check();
      await page.getByRole('button', { name: 'Save policy' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: `Policy “${name}” saved.` }).isVisible()).toBe(true);
      const edited = await storedPolicy(h, tenant, name);
      expect(edited).toMatchObject({ id: created!.id, action: 'block', severity: 'high', message: null });
      expect(edited!.conditions).toEqual({
        platform_ids: ['chatgpt', 'claude'], classification_types: ['EMAIL'], min_risk_score: 0.6, directions: ['outbound'],
        sources: ['browser_extension', 'proxy'], interaction_types: ['prompt'], validated_only: true, platform_statuses: ['unsanctioned'],
      });

      // Disable, then enable.
      await row(page, name).getByRole('button', { name: `Disable ${name}` }).click();
      await expect.poll(() => row(page, name).getByRole('button', { name: `Enable ${name}` }).isVisible()).toBe(true);
      expect(await row(page, name).textContent()).toContain('disabled');
      expect((await storedPolicy(h, tenant, name))!.enabled).toBe(false);
      await row(page, name).getByRole('button', { name: `Enable ${name}` }).click();
      await expect.poll(() => row(page, name).getByRole('button', { name: `Disable ${name}` }).isVisible()).toBe(true);
      expect((await storedPolicy(h, tenant, name))!.enabled).toBe(true);

      // Preview against interactions ingested through the API: three match, three miss one condition each.
      // validated_only: the tenant does not validate signals, so drop it again for the preview to match.
      const matching = [];
      const email = classification('EMAIL', { value: 'jane@example.com' });
      for (const platform of ['chatgpt', 'claude', 'chatgpt']) {
        matching.push(await createInteraction(h, tenant, { platform_id: platform, risk_score: 0.8, classifications: [email] }));
      }
      await createInteraction(h, tenant, { platform_id: 'gemini', risk_score: 0.8, classifications: [email] });
      await createInteraction(h, tenant, { platform_id: 'chatgpt', risk_score: 0.3, classifications: [email] });
      await createInteraction(h, tenant, { platform_id: 'chatgpt', risk_score: 0.9, classifications: [email], direction: 'inbound' });

      await page.getByRole('link', { name: `Edit ${name}` }).click();
      await expect.poll(() => page.getByLabel(/^Validated detections only/).isChecked()).toBe(true);
      await page.getByLabel(/^Validated detections only/).uncheck();
      await page.getByRole('button', { name: 'Preview', exact: true }).click();
      const result = page.getByTestId('dry-run-result');
      await expect.poll(() => page.getByTestId('dry-run-matched').textContent()).toBe('3');
      expect(await result.textContent()).toContain('Every interaction of the period was examined.');
      const expected = await h.call('POST', '/api/v1/policies/dry-run', { token: tenant.adminToken, body: {
        name, action: 'block', conditions: { ...edited!.conditions, validated_only: undefined },
      } });
      expect(expected.json()).toMatchObject({ matched: 3, scanned: 6, alerts: 3, truncated: false });
      expect(await result.getByText('Would be blocked').locator('xpath=following-sibling::dd[1]').textContent()).toBe('3');
      const links = await result.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(links.sort()).toEqual(matching.map((m) => `/interactions/${m.id}`).sort());
      await screenshot(page, 'policy-form');
      // Previewing saved nothing: the stored policy still has validated_only.
      expect((await storedPolicy(h, tenant, name))!.conditions.validated_only).toBe(true);
      await page.getByRole('button', { name: 'Cancel' }).click();

      await createPolicy(h, tenant, { name: 'Log every API key', action: 'log', severity: 'low', conditions: { classification_types: ['API_KEY'] } });
      await page.reload();
      await expect.poll(() => row(page, 'Log every API key').isVisible()).toBe(true);
      await screenshot(page, 'policies');

      // Filters live in the URL.
      await page.getByLabel('Action', { exact: true }).selectOption('log');
      await expect.poll(() => new URL(page.url()).searchParams.get('action')).toBe('log');
      await expect.poll(() => row(page, name).count()).toBe(0);
      await page.getByLabel('Action', { exact: true }).selectOption('');

      // Delete, after a confirmation.
      await row(page, name).getByRole('button', { name: `Delete ${name}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete policy' });
      await expect.poll(() => dialog.textContent()).toContain(name);
      await dialog.getByRole('button', { name: 'Delete policy' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: `Policy “${name}” deleted.` }).isVisible()).toBe(true);
      await expect.poll(() => row(page, name).count()).toBe(0);
      expect(await storedPolicy(h, tenant, name)).toBeUndefined();
      expect((await h.call('GET', `/api/v1/policies/${created!.id}`, { token: tenant.adminToken })).statusCode).toBe(404);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the API sentence next to the form for a refused policy, and stores nothing', async () => {
    const tenant = await h.tenant();
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/policies?new=1');
      await page.getByLabel('Name', { exact: true }).fill('   ');
      await page.getByRole('button', { name: 'Create policy' }).click();
      const refused = await h.call('POST', '/api/v1/policies', { token: tenant.adminToken, body: {
        name: '   ', description: '', action: 'block', severity: 'medium', enabled: true, conditions: {},
      } });
      expect(refused.statusCode).toBe(400);
      const sentence = refused.json().error as string;
      expect(sentence).toMatch(/name/);
      const alert = page.getByRole('region', { name: 'Policy form' }).getByRole('alert');
      await expect.poll(() => alert.textContent()).toContain(sentence);
      // The preview refuses the same body with the same sentence.
      await page.getByRole('button', { name: 'Preview', exact: true }).click();
      await expect.poll(() => page.getByRole('region', { name: 'Preview' }).getByRole('alert').textContent()).toContain(sentence);
      expect((await h.call('GET', '/api/v1/policies', { token: tenant.adminToken })).json().total).toBe(0);
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a viewer sees the policies but no write control', async () => {
    const tenant = await h.tenant();
    await createPolicy(h, tenant, { name: 'Block card numbers', action: 'block', conditions: { classification_types: ['CREDIT_CARD'] } });
    const viewer = await h.user(tenant, 'viewer');
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, viewer.email, undefined, '/policies?new=1');
      await expect.poll(() => row(page, 'Block card numbers').textContent()).toContain('Data: CREDIT_CARD');
      expect(await page.getByRole('link', { name: 'New policy' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /Create policy|Preview|Disable|Enable|Delete/ }).count()).toBe(0);
      expect(await page.getByRole('link', { name: /^Edit / }).count()).toBe(0);
      expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
