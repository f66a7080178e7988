import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, startConsoleService, unexpectedErrors } from '../helpers/console.js';
import type { Harness } from '../helpers/harness.js';
import { HecReceiver } from '../helpers/hec-receiver.js';
import { createTestCertificates } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { deliveryEnv } from '../helpers/webhooks-fixtures.js';

const TOKEN = 'c0ffee00-hec-token-from-console';

describe.skipIf(!chromiumFound).each(STORES)('console webhook formats [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let hec: HecReceiver;

  beforeAll(async () => {
    vi.setConfig({ expect: { poll: { timeout: 10_000, interval: 100 } } });
    const certificates = createTestCertificates();
    hec = await HecReceiver.start(certificates, TOKEN);
    ({ h, base } = await startConsoleService(kind, { env: deliveryEnv(certificates, { PUBLIC_BASE_URL: 'https://ugs.example.test' }) }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    vi.resetConfig();
    await browser?.close();
    await h?.close();
    await hec?.close();
  });

  it('previews the body of the chosen format, asks a Splunk HEC webhook for its token, and test-sends in HEC form', async () => {
    const tenant = await h.tenant();
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/webhooks');
      await page.getByRole('button', { name: 'Register a webhook' }).click();
      const register = page.getByRole('dialog', { name: 'Register a webhook' });
      const preview = register.getByLabel('Sample body');

      // Standard by default: the envelope of the sample event.
      await expect.poll(async () => (await preview.textContent())?.startsWith('{"id":"evt_')).toBe(true);
      expect(JSON.parse((await preview.textContent())!)).toMatchObject({ event_type: 'interaction.created', tenant_id: tenant.tenantId });

      // Splunk HEC: its hint, its preview (the first chosen event type), and a required token.
      await register.getByLabel('Format').selectOption('splunk_hec');
      expect(await register.getByText('Splunk HTTP Event Collector').isVisible()).toBe(true);
      await register.getByLabel('alert.created', { exact: true }).check();
      await expect.poll(async () => (await preview.textContent())?.includes('"sourcetype":"ugs:alert.created"')).toBe(true);
      const shown = JSON.parse((await preview.textContent())!);
      expect(shown).toMatchObject({ host: 'ugs.example.test', source: 'ugs', event: { event_type: 'alert.created', tenant_id: tenant.tenantId } });
      expect(await register.getByLabel('Auth token (optional)').count()).toBe(0);
      const token = register.getByLabel('HEC token');
      expect(await token.getAttribute('required')).not.toBeNull();

      await register.getByLabel('URL').fill(hec.url());
      await token.fill(TOKEN);
      await screenshot(page, 'webhook-register-splunk-hec');
      await register.getByRole('button', { name: 'Register' }).click();
      const registered = page.getByRole('dialog', { name: 'Webhook registered' });
      await expect.poll(() => registered.isVisible()).toBe(true);
      await registered.getByRole('button', { name: 'Done' }).click();

      const [stored] = (await h.call('GET', '/api/v1/webhooks', { token: tenant.adminToken })).json().webhooks;
      expect(stored).toMatchObject({ url: hec.url(), format: 'splunk_hec', has_auth_token: true, events: ['alert.created'] });
      const row = page.getByRole('row').filter({ hasText: hec.url() });
      await expect.poll(() => row.textContent()).toContain('Splunk HEC');

      // The test send reaches HEC with the token as `Splunk`, one HEC event.
      await row.getByRole('link', { name: hec.url() }).click();
      await page.getByLabel('Event type').selectOption('alert.created');
      await page.getByRole('button', { name: 'Send test' }).click();
      await expect.poll(() => page.getByRole('status', { name: 'Test result' }).textContent()).toContain('Delivered');
      expect(hec.requests).toHaveLength(1);
      expect(hec.requests[0]!.headers.authorization).toBe(`Splunk ${TOKEN}`);
      expect(hec.requests[0]!.events.map((e) => e.sourcetype)).toEqual(['ugs:alert.created']);

      // Editing keeps the token (the field may stay empty) and never offers to remove it.
      await page.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit the webhook' });
      expect(await edit.getByLabel('HEC token').getAttribute('required')).toBeNull();
      expect(await edit.getByLabel('Remove the auth token').count()).toBe(0);
      await edit.getByLabel('Description').fill('Splunk');
      await edit.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Webhook saved.' }).isVisible()).toBe(true);
      expect((await h.call('GET', `/api/v1/webhooks/${stored.id}`, { token: tenant.adminToken })).json())
        .toMatchObject({ description: 'Splunk', has_auth_token: true, format: 'splunk_hec' });

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
