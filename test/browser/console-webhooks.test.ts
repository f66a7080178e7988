import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv, verifyStandard } from '../helpers/webhooks-fixtures.js';

/** Deliveries are made by the background workers, a moment after the change. */
const WORKER_WAIT = { timeout: 20_000, interval: 300 };

const historyRows = (page: Page) => page.getByRole('table', { name: 'Delivery history' }).locator('tbody tr');

/** Rows of the history matching `text`, read again with its Refresh button (the page also refreshes on its own). */
async function refreshedCount(page: Page, text: string): Promise<number> {
  await page.getByRole('button', { name: 'Refresh' }).click();
  return historyRows(page).filter({ hasText: text }).count();
}

describe.skipIf(!chromiumFound).each(STORES)('console webhooks [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    // The machine is shared by parallel runs: a sign-in (argon2id) or a page's first render can take
    // more than expect.poll's default second.
    vi.setConfig({ expect: { poll: { timeout: 10_000, interval: 100 } } });
    const certificates = createTestCertificates();
    receiver = await HttpsReceiver.start(certificates);
    ({ h, base } = await startConsoleService(kind, { env: deliveryEnv(certificates), workers: true }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    vi.resetConfig();
    await browser?.close();
    await h?.close();
    await receiver?.close();
  });

  it('an admin registers a webhook to a receiver, sends a test, sees it in the history, redelivers, edits, rotates the secret and deletes it', async () => {
    const tenant = await h.tenant();
    const path = `/hook-${kind}`;
    const at = () => receiver.at(path);
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/webhooks');
      await expect.poll(() => page.getByText('No webhooks yet.').isVisible()).toBe(true);

      // Register, with events from the catalog, a custom header and a bearer token.
      await page.getByRole('button', { name: 'Register a webhook' }).click();
      const register = page.getByRole('dialog', { name: 'Register a webhook' });
      await register.getByLabel('URL').fill(receiver.url(path));
      expect(await register.getByLabel('Format').inputValue()).toBe('standard');
      await register.getByLabel('Description').fill('SIEM intake');
      await register.getByLabel('policy.created', { exact: true }).check();
      await register.getByLabel('alert.created', { exact: true }).check();
      await register.getByRole('button', { name: 'Add a header' }).click();
      await register.getByLabel('Header 1 name').fill('X-Source');
      await register.getByLabel('Header 1 value').fill('ugs-console');
      await register.getByLabel('Auth token (optional)').fill('bearer-from-console');
      await register.getByRole('button', { name: 'Register' }).click();

      // The signing secret, once.
      const registered = page.getByRole('dialog', { name: 'Webhook registered' });
      await expect.poll(() => registered.getByTestId('secret-value').isVisible()).toBe(true);
      const secret = (await registered.getByTestId('secret-value').textContent()) ?? '';
      expect(secret).toMatch(/^whsec_/);
      await registered.getByRole('button', { name: 'Done' }).click();
      await expect.poll(() => registered.isVisible()).toBe(false);
      expect(await page.content()).not.toContain(secret);

      const listed = await h.call('GET', '/api/v1/webhooks', { token: tenant.adminToken });
      const [stored] = (listed.json() as { webhooks: Record<string, unknown>[] }).webhooks;
      expect(stored).toMatchObject({
        url: receiver.url(path), description: 'SIEM intake', events: ['policy.created', 'alert.created'],
        headers: { 'X-Source': 'ugs-console' }, has_auth_token: true, active: true, format: 'standard',
      });
      const webhookId = stored!.id as string;
      const row = page.getByRole('row').filter({ hasText: receiver.url(path) });
      await expect.poll(() => row.textContent()).toContain('policy.created, alert.created');
      expect(await row.textContent()).toContain('Active');

      // Its page: send a test and read the receiver's answer there and in the history.
      await row.getByRole('link', { name: receiver.url(path) }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/webhooks/${webhookId}`);
      await expect.poll(() => page.getByRole('heading', { name: 'SIEM intake' }).isVisible()).toBe(true);
      await page.getByLabel('Event type').selectOption('alert.created');
      await page.getByRole('button', { name: 'Send test' }).click();
      const result = page.getByRole('status', { name: 'Test result' });
      await expect.poll(() => result.textContent(), { timeout: 30_000 }).toContain('Delivered');
      expect(await result.textContent()).toContain('HTTP 200');

      expect(at()).toHaveLength(1);
      const testRequest = at()[0]!;
      expect(bodyOf(testRequest).event_type).toBe('alert.created');
      expect(testRequest.headers.authorization).toBe('Bearer bearer-from-console');
      expect(testRequest.headers['x-source']).toBe('ugs-console');
      expect(() => verifyStandard(secret, testRequest)).not.toThrow();

      await expect.poll(() => historyRows(page).count()).toBe(1);
      const testRow = historyRows(page).first();
      expect(await testRow.textContent()).toMatch(/alert\.created.*Test.*Delivered.*200/);
      // A test is not redelivered (the API refuses it): no button for it.
      expect(await testRow.getByRole('button', { name: /Redeliver/ }).count()).toBe(0);

      // A real event, delivered by the workers, appears in the history; redeliver it.
      const policy = await h.call('POST', '/api/v1/policies', {
        token: tenant.adminToken,
        body: { name: 'No secrets', action: 'block', severity: 'high', conditions: { classification_types: ['api_key'] } },
      });
      expect(policy.statusCode).toBe(201);
      await receiver.waitFor(() => at().some((r) => bodyOf(r).event_type === 'policy.created'), WORKER_WAIT.timeout);
      const eventRow = historyRows(page).filter({ hasText: 'policy.created' });
      await expect.poll(() => refreshedCount(page, 'policy.created'), WORKER_WAIT).toBe(1);
      expect(await eventRow.textContent()).toMatch(/Delivered.*200/);
      await eventRow.getByRole('button', { name: /Redeliver/ }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Redelivery of policy.created queued' }).isVisible()).toBe(true);
      await receiver.waitFor(() => at().filter((r) => bodyOf(r).event_type === 'policy.created').length === 2, WORKER_WAIT.timeout);
      const [first, again] = at().filter((r) => bodyOf(r).event_type === 'policy.created');
      expect(bodyOf(again!).id).toBe(bodyOf(first!).id);
      await expect.poll(() => refreshedCount(page, 'policy.created'), WORKER_WAIT).toBe(2);
      // The same event, twice.
      const eventIds = await eventRow.locator('td:nth-child(2) small code').allTextContents();
      expect(eventIds).toEqual([bodyOf(first!).id, bodyOf(first!).id]);
      await screenshot(page, 'webhook-detail');

      // Edit: format, description, events, and the token removed.
      await page.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit the webhook' });
      await edit.getByLabel('Format').selectOption('ocsf');
      await edit.getByLabel('Description').fill('SIEM intake (eu)');
      await edit.getByLabel('alert.created', { exact: true }).uncheck();
      await edit.getByLabel('Remove the auth token').check();
      await edit.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Webhook saved.' }).isVisible()).toBe(true);
      await expect.poll(() => page.getByRole('heading', { name: 'SIEM intake (eu)' }).isVisible()).toBe(true);
      const edited = (await h.call('GET', `/api/v1/webhooks/${webhookId}`, { token: tenant.adminToken })).json();
      expect(edited).toMatchObject({ description: 'SIEM intake (eu)', events: ['policy.created'], has_auth_token: false, format: 'ocsf' });
      await expect.poll(() => page.getByRole('region', { name: 'Webhook details' }).textContent()).toContain('OCSF 1.3');

      // Rotate: a new secret, once; the next delivery verifies with it.
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret' });
      await rotate.getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = page.getByRole('dialog', { name: 'New signing secret' });
      await expect.poll(() => rotated.getByTestId('secret-value').isVisible()).toBe(true);
      const newSecret = (await rotated.getByTestId('secret-value').textContent()) ?? '';
      expect(newSecret).toMatch(/^whsec_/);
      expect(newSecret).not.toBe(secret);
      await rotated.getByRole('button', { name: 'Done' }).click();
      await expect.poll(() => rotated.isVisible()).toBe(false);
      expect(await page.content()).not.toContain(newSecret);
      await page.getByLabel('Event type').selectOption('policy.created');
      await page.getByRole('button', { name: 'Send test' }).click();
      await receiver.waitFor(() => at().length === 4, WORKER_WAIT.timeout);
      const afterRotation = at()[3]!;
      expect(() => verifyStandard(newSecret, afterRotation)).not.toThrow();
      expect(afterRotation.headers.authorization).toBeUndefined();
      // Sent in the format chosen in the edit, and shown so in the history.
      expect(JSON.parse(afterRotation.rawBody.toString('utf8'))).toMatchObject({
        class_uid: 3004, metadata: { version: '1.3.0', event_code: 'policy.created' },
      });
      await expect.poll(() => refreshedCount(page, 'OCSF 1.3'), WORKER_WAIT).toBe(1);

      // The list shows its last delivery, then delete it.
      await page.getByRole('link', { name: '← Webhooks' }).click();
      const listRow = page.getByRole('row').filter({ hasText: receiver.url(path) });
      await expect.poll(() => listRow.textContent()).toContain('SIEM intake (eu)');
      expect(await listRow.textContent()).toContain('OCSF 1.3');
      await screenshot(page, 'webhooks');
      await listRow.getByRole('link', { name: receiver.url(path) }).click();
      await page.getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete the webhook' });
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/webhooks');
      await expect.poll(() => page.getByText('No webhooks yet.').isVisible()).toBe(true);
      expect((await h.call('GET', `/api/v1/webhooks/${webhookId}`, { token: tenant.adminToken })).statusCode).toBe(404);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('a viewer opening the webhook pages sees the API refusal and no write control', async () => {
    const tenant = await h.tenant();
    const webhook = await createWebhook(h, tenant, { url: receiver.url('/viewer'), events: ['alert.created'], description: 'Admins only' });
    const viewer = await h.user(tenant, 'viewer');
    const refusal = (await h.call('GET', '/api/v1/webhooks', { token: viewer.token })).json() as { error: string };
    expect(refusal.error).toMatch(/\w/);
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, viewer.email);
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).count()).toBe(0);

      await page.goto(`${base}/webhooks`);
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(refusal.error);
      expect(await page.getByRole('button', { name: 'Register a webhook' }).count()).toBe(0);

      await page.goto(`${base}/webhooks/${webhook.id}`);
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(refusal.error);
      for (const name of ['Edit', 'Rotate secret', 'Delete', 'Send test', 'Redeliver']) {
        expect(await page.getByRole('button', { name }).count()).toBe(0);
      }
      expect(await page.getByText('Admins only').count()).toBe(0);

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
