import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import { TEST_PASSWORD, type Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';

const NEW_PASSWORD = 'Console-Passw0rd-2026';

const entryRows = (page: Page) => page.getByRole('table', { name: 'Audit entries' }).locator('tbody tr');
const actionsShown = async (page: Page) => entryRows(page).locator('td:nth-child(3)').allTextContents();

/** The sentence errorMessage() makes of an API error body: `error (field: message; ...)`. */
function sentenceOf(body: { error: string; details?: { path: string; message: string }[] }): string {
  const details = body.details?.map((d) => `${d.path.replace(/^(body|query|params)\./, '')}: ${d.message}`) ?? [];
  return details.length > 0 ? `${body.error} (${details.join('; ')})` : body.error;
}

async function auditActions(h: Harness, t: TestTenant, query: Record<string, string> = {}): Promise<string[]> {
  const response = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { limit: 500, ...query } });
  return (response.json() as { entries: { action: string }[] }).entries.map((entry) => entry.action);
}

describe.skipIf(!chromiumFound).each(STORES)('console API keys, audit log, settings and profile [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    // The machine is shared by parallel runs: a sign-in (argon2id) or a page's first render can take
    // more than expect.poll's default second.
    vi.setConfig({ expect: { poll: { timeout: 10_000, interval: 100 } } });
    ({ h, base } = await startConsoleService(kind));
    browser = await launchChromium();
  });
  afterAll(async () => {
    vi.resetConfig();
    await browser?.close();
    await h?.close();
  });

  it('an admin creates an API key (shown once, and it works), then revokes it', async () => {
    const tenant = await h.tenant();
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/api-keys');
      await expect.poll(() => page.getByText('No active API keys.').isVisible()).toBe(true);

      await page.getByRole('button', { name: 'Create an API key' }).click();
      const create = page.getByRole('dialog', { name: 'Create an API key' });
      await create.getByLabel('Name').fill('Proxy eu-west-1');
      await create.getByLabel('interactions:read').check();
      await create.getByRole('button', { name: 'Create key' }).click();
      const created = page.getByRole('dialog', { name: 'API key created' });
      await expect.poll(() => created.getByTestId('secret-value').isVisible()).toBe(true);
      const key = (await created.getByTestId('secret-value').textContent()) ?? '';
      expect(key).toMatch(/^ugk_/);
      await created.getByRole('button', { name: 'Done' }).click();
      await expect.poll(() => created.isVisible()).toBe(false);
      expect(await page.content()).not.toContain(key);

      // The key works, with the read scope checked beside the default write scope.
      expect((await h.call('GET', '/api/v1/interactions', { token: key })).statusCode).toBe(200);
      const row = page.getByRole('row').filter({ hasText: 'Proxy eu-west-1' });
      await expect.poll(() => row.textContent()).toContain('interactions:write');
      expect(await row.textContent()).toContain('interactions:read');
      expect(key.startsWith(((await row.locator('code').textContent()) ?? '').replace('…', ''))).toBe(true);
      await screenshot(page, 'api-keys');

      await row.getByRole('button', { name: 'Revoke Proxy eu-west-1' }).click();
      await page.getByRole('dialog', { name: 'Revoke the API key' }).getByRole('button', { name: 'Revoke' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'API key “Proxy eu-west-1” revoked.' }).isVisible()).toBe(true);
      await expect.poll(() => page.getByText('No active API keys.').isVisible()).toBe(true);
      expect((await h.call('GET', '/api/v1/interactions', { token: key })).statusCode).toBe(401);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the audit log shows these actions, filters them in the URL, and exports the filtered entries as CSV', async () => {
    const tenant = await h.tenant();
    const viewer = await h.user(tenant, 'viewer');
    const created = await h.call('POST', '/api/v1/api-keys', { token: tenant.adminToken, body: { name: 'Audited key', scopes: ['interactions:write'] } });
    const keyId = (created.json() as { id: string }).id;
    expect((await h.call('DELETE', `/api/v1/api-keys/${keyId}`, { token: tenant.adminToken })).statusCode).toBe(204);
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/audit-log');
      await expect.poll(() => actionsShown(page)).toEqual(expect.arrayContaining(['api_key.revoked', 'api_key.created', 'auth.login']));
      // Details unfold.
      const createdRow = entryRows(page).filter({ hasText: 'api_key.created' });
      await createdRow.getByText('Show').click();
      await expect.poll(() => createdRow.locator('pre').textContent()).toContain('Audited key');
      await screenshot(page, 'audit-log');

      // By action: the URL carries the filter.
      await page.getByLabel('Action').fill('api_key.created');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('action')).toBe('api_key.created');
      await expect.poll(() => actionsShown(page)).toEqual(['api_key.created']);

      // Export CSV of the filtered entries.
      const downloading = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toMatch(/\.csv$/);
      const csv = readFileSync((await download.path())!, 'utf8');
      const lines = csv.trim().split('\n');
      expect(lines[0]).toBe('id,occurred_at,actor_type,actor_id,actor_label,action,target_type,target_id,details,ip,request_id');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(`api_key.created,api_key,${keyId}`);
      expect(lines[1]).toContain(tenant.adminEmail);
      await expect.poll(() => auditActions(h, tenant, { action: 'audit_log.exported' })).toHaveLength(1);

      // By actor (the viewer signed in once), and a link to it works as is.
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect.poll(() => new URL(page.url()).search).toBe('');
      // The form is drawn again for the new URL (a transition, which may come after the URL changed).
      await expect.poll(() => page.getByLabel('Action').inputValue()).toBe('');
      await page.getByLabel('Actor').selectOption({ label: viewer.email });
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('actor_id')).toBe(viewer.id);
      await expect.poll(() => actionsShown(page)).toEqual(['auth.login']);
      await page.goto(`${base}/audit-log?action=api_key.revoked`);
      await expect.poll(() => actionsShown(page)).toEqual(['api_key.revoked']);
      expect(await page.getByLabel('Action').inputValue()).toBe('api_key.revoked');

      // By dates: nothing happened tomorrow.
      const tomorrow = new Date(Date.now() + 86_400_000);
      const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`;
      await page.getByLabel('From').fill(day);
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.getByText('No entries match these filters.').isVisible()).toBe(true);
      expect(new URL(page.url()).searchParams.get('start_date')).toBe(day);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an admin edits the settings (kept via the API) and sees the API refuse a short audit retention', async () => {
    const tenant = await h.tenant('Settings Co');
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/settings');
      await expect.poll(() => page.getByLabel('Organization name').inputValue()).toBe('Settings Co');

      await page.getByLabel('Organization name').fill('Settings Europe');
      await page.getByLabel('Interaction retention: keep forever').uncheck();
      await page.getByLabel('Interaction retention', { exact: true }).fill('90');
      await page.getByLabel('Audit log retention: keep forever').check();
      await page.getByLabel('Validate the risk signals', { exact: false }).uncheck();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Settings saved.' }).isVisible()).toBe(true);
      const saved = (await h.call('GET', '/api/v1/tenant', { token: tenant.adminToken })).json();
      expect(saved).toMatchObject({ name: 'Settings Europe', retention_days: 90, audit_retention_days: null, validate_signals: false });

      // A value the API refuses: its sentence, and nothing changed.
      const refused = await h.call('PUT', '/api/v1/tenant', { token: tenant.adminToken, body: { audit_retention_days: 100 } });
      expect(refused.statusCode).toBe(400);
      await page.getByLabel('Audit log retention: keep forever').uncheck();
      await page.getByLabel('Audit log retention', { exact: true }).fill('100');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(sentenceOf(refused.json()));
      expect(await page.getByRole('alert').textContent()).toContain('audit_retention_days');
      expect((await h.call('GET', '/api/v1/tenant', { token: tenant.adminToken })).json()).toMatchObject({ audit_retention_days: null });

      await page.getByLabel('Audit log retention', { exact: true }).fill('400');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Settings saved.' }).isVisible()).toBe(true);
      expect((await h.call('GET', '/api/v1/tenant', { token: tenant.adminToken })).json()).toMatchObject({ audit_retention_days: 400 });
      await screenshot(page, 'settings');

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a user changes their display name and password on My profile, then signs in with the new password', async () => {
    const tenant = await h.tenant();
    const user = await h.user(tenant, 'admin');
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, user.email, undefined, '/profile');
      await expect.poll(() => page.getByText(user.email, { exact: true }).first().isVisible()).toBe(true);

      await page.getByLabel('Display name').fill('Ada Admin');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Display name saved.' }).isVisible()).toBe(true);
      expect((await h.call('GET', '/api/v1/users/me', { token: user.token })).json()).toMatchObject({ display_name: 'Ada Admin' });

      // A password the API refuses: its sentence.
      const weak = await h.call('PUT', '/api/v1/users/me', { token: user.token, body: { password: 'short' } });
      expect(weak.statusCode).toBe(400);
      await page.getByLabel('New password', { exact: true }).fill('short');
      await page.getByLabel('Confirm the new password').fill('short');
      await page.getByRole('button', { name: 'Change password' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(sentenceOf(weak.json()));

      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('Confirm the new password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Change password' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Password changed.' }).isVisible()).toBe(true);
      await screenshot(page, 'profile');
      expect((await h.call('POST', '/api/v1/auth/login', { body: { email: user.email, password: TEST_PASSWORD } })).statusCode).toBe(401);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
      await signIn(page, base, user.email, NEW_PASSWORD, '/profile');
      await expect.poll(() => page.getByLabel('Display name').inputValue()).toBe('Ada Admin');

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a viewer sees the settings read-only, no admin pages in the navigation, and the API refusal on the audit log', async () => {
    const tenant = await h.tenant('Viewer Co');
    const viewer = await h.user(tenant, 'viewer');
    const refusal = (await h.call('GET', '/api/v1/audit-log', { token: viewer.token })).json() as { error: string };
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, viewer.email, undefined, '/settings');
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.getByRole('link', { name: 'Settings' }).count()).toBe(1);
      for (const name of ['API keys', 'Audit log', 'Webhooks']) expect(await nav.getByRole('link', { name }).count()).toBe(0);

      const values = page.getByRole('region', { name: 'Organization settings' });
      await expect.poll(() => values.textContent()).toContain('Viewer Co');
      expect(await page.getByRole('textbox').count()).toBe(0);
      expect(await page.getByRole('spinbutton').count()).toBe(0);
      expect(await page.getByRole('checkbox').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Save settings' }).count()).toBe(0);

      await page.goto(`${base}/audit-log`);
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(refusal.error);
      expect(await page.getByRole('button', { name: 'Export CSV' }).count()).toBe(0);
      await page.goto(`${base}/api-keys`);
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(refusal.error);
      expect(await page.getByRole('button', { name: 'Create an API key' }).count()).toBe(0);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
