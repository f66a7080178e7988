import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomSecret, sha256Hex } from '../../src/kernel/crypto.js';
import { SSO_REFUSALS } from '../../src/modules/sso/sso.refusals.js';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { openConsole, screenshot, signIn, unexpectedErrors } from '../helpers/console.js';
import { Harness, TEST_PASSWORD, type TestTenant } from '../helpers/harness.js';
import { listen } from '../helpers/listening.js';
import { freePort } from '../helpers/process.js';
import { STORES } from '../helpers/stores.js';

const SECRET = 'provider-client-secret-7f3a9c';
const GENERIC_REFUSAL = 'Single sign-on did not succeed.';

/** The sentence errorMessage() makes of an API error body: `error (field: message; ...)`. */
function sentenceOf(body: { error: string; details?: { path: string; message: string }[] }): string {
  const details = body.details?.map((d) => `${d.path.replace(/^(body|query|params)\./, '')}: ${d.message}`) ?? [];
  return details.length > 0 ? `${body.error} (${details.join('; ')})` : body.error;
}

let domains = 0;
/** An email domain no other test of the file uses (the sign-in finds the organization by it). */
const uniqueDomain = () => `sso${++domains}-${Date.now()}.test`;

const ssoRegion = (page: Page) => page.getByRole('region', { name: 'Single sign-on' });
const alertText = (page: Page) => page.getByRole('alert').textContent();

async function storedSso(h: Harness, t: TestTenant) {
  const response = await h.call('GET', '/api/v1/tenant/sso', { token: t.adminToken });
  return { status: response.statusCode, body: response.body, json: response.statusCode === 200 ? response.json() : undefined };
}

/**
 * The service listens on a port known before it starts, so that PUBLIC_BASE_URL (where it sends
 * the browser back after a refused single sign-on, and the redirect URI it shows) is this console.
 */
describe.skipIf(!chromiumFound).each(STORES)('console single sign-on [%s]', (kind) => {
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    vi.setConfig({ expect: { poll: { timeout: 10_000, interval: 100 } } });
    const port = await freePort();
    h = await Harness.start(kind, { env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    base = await listen(h.app, port);
    browser = await launchChromium();
  });
  afterAll(async () => {
    vi.resetConfig();
    await browser?.close();
    await h?.close();
  });

  it('an admin sets up single sign-on, keeps the stored secret, tests a provider that cannot be reached, and turns it off', async () => {
    const tenant = await h.tenant('Sso Co');
    const domain = uniqueDomain();
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, tenant.adminEmail, undefined, '/settings');
      const region = ssoRegion(page);
      await expect.poll(() => region.textContent()).toContain('Not set up');
      expect(await region.getByRole('button', { name: 'Turn off single sign-on' }).count()).toBe(0);

      // An issuer without HTTPS: the API's sentence, with its field, and nothing stored.
      const form = {
        issuer: 'http://idp.example.test/realms/acme', client_id: 'ugs-console', client_secret: SECRET,
        allowed_domains: [domain, 'second.example.test'], role_claim: 'groups', admin_values: ['ugs-admins', 'security'],
        default_role: null, enforce: true,
      };
      const refused = await h.call('PUT', '/api/v1/tenant/sso', { token: tenant.adminToken, body: form });
      expect(refused.statusCode).toBe(400);
      await region.getByLabel('Issuer URL').fill(form.issuer);
      await region.getByLabel('Client ID').fill(form.client_id);
      await region.getByLabel('Client secret').fill(SECRET);
      // Upper case and both separators: the console sends the API lower-case domains, one each.
      await region.getByLabel('Allowed email domains').fill(`${domain.toUpperCase()}, second.example.test\n`);
      expect(await region.getByLabel('Role claim').inputValue()).toBe('groups');
      await region.getByLabel('Admin values').fill('ugs-admins\nsecurity');
      await region.getByLabel('Default role').selectOption({ label: 'Nobody new (members only)' });
      await region.getByLabel('Require single sign-on').check();
      await region.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => alertText(page)).toBe(sentenceOf(refused.json()));
      expect(await alertText(page)).toContain('issuer');
      expect((await storedSso(h, tenant)).status).toBe(404);

      await region.getByLabel('Issuer URL').fill('https://idp.example.test/realms/acme');
      await region.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => region.getByRole('status').filter({ hasText: 'Single sign-on saved.' }).isVisible()).toBe(true);
      const saved = await storedSso(h, tenant);
      expect(saved.json).toEqual({
        issuer: 'https://idp.example.test/realms/acme', client_id: 'ugs-console', allowed_domains: [domain, 'second.example.test'],
        role_claim: 'groups', admin_values: ['ugs-admins', 'security'], default_role: null, enforce: true,
        client_secret_set: true, redirect_uri: `${base}/api/v1/auth/sso/callback`,
        updated_at: expect.any(String), updated_by: tenant.adminEmail,
      });
      expect(saved.body).not.toContain(SECRET);

      // The secret is not in the page: its field is empty, saying one is stored; the redirect URI is shown to copy.
      // The form shows what is stored: the domains in lower case, one per line.
      expect(await region.getByLabel('Allowed email domains').inputValue()).toBe(`${domain}\nsecond.example.test`);
      const secret = region.getByLabel('Client secret');
      expect(await secret.inputValue()).toBe('');
      expect(await secret.getAttribute('placeholder')).toBe('stored — leave empty to keep');
      expect(await page.content()).not.toContain(SECRET);
      expect(await region.getByTestId('sso-redirect-uri').textContent()).toBe(`${base}/api/v1/auth/sso/callback`);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      await region.getByRole('button', { name: 'Copy the redirect URI' }).click();
      await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(`${base}/api/v1/auth/sso/callback`);
      await screenshot(page, 'settings-sso');

      // Saved again with the secret left empty: the stored one is kept (the audit entry has no secret change).
      await region.getByLabel('Client ID').fill('ugs-console-2');
      await region.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(async () => (await storedSso(h, tenant)).json?.client_id).toBe('ugs-console-2');
      expect((await storedSso(h, tenant)).json).toMatchObject({ client_secret_set: true });
      const audit = await h.call('GET', '/api/v1/audit-log', { token: tenant.adminToken, query: { action: 'sso.updated' } });
      const [updated] = (audit.json() as { entries: { details: Record<string, unknown> }[] }).entries;
      expect(updated?.details).toEqual({ client_id: { from: 'ugs-console', to: 'ugs-console-2' } });

      // A fresh page shows what is stored.
      await page.reload();
      await expect.poll(() => ssoRegion(page).getByLabel('Client ID').inputValue()).toBe('ugs-console-2');
      expect(await region.getByLabel('Allowed email domains').inputValue()).toBe(`${domain}\nsecond.example.test`);
      expect(await region.getByLabel('Default role').inputValue()).toBe('none');
      expect(await region.getByLabel('Require single sign-on').isChecked()).toBe(true);
      expect(await region.textContent()).toContain('Required');

      // The connection test of the issuer typed, which nothing answers: the API's reason, nothing stored.
      const unreachable = 'https://127.0.0.1:1';
      const tested = (await h.call('POST', '/api/v1/tenant/sso/test', { token: tenant.adminToken, body: { issuer: unreachable } })).json();
      expect(tested).toMatchObject({ ok: false, issuer: unreachable });
      await region.getByLabel('Issuer URL').fill(unreachable);
      await region.getByRole('button', { name: 'Test connection' }).click();
      await expect.poll(() => alertText(page)).toBe(`Connection to ${unreachable} failed. ${tested.message}`);
      expect(tested.message).toContain('could not be reached');
      expect((await storedSso(h, tenant)).json).toMatchObject({ issuer: 'https://idp.example.test/realms/acme' });

      await region.getByRole('button', { name: 'Turn off single sign-on' }).click();
      const confirm = page.getByRole('dialog', { name: 'Turn off single sign-on' });
      await confirm.getByRole('button', { name: 'Turn off', exact: true }).click();
      await expect.poll(() => region.getByRole('status').filter({ hasText: 'Single sign-on turned off.' }).isVisible()).toBe(true);
      expect((await storedSso(h, tenant)).status).toBe(404);
      expect(await region.textContent()).toContain('Not set up');
      expect(await region.getByLabel('Issuer URL').inputValue()).toBe('');
      expect(await region.getByLabel('Client secret').getAttribute('placeholder')).toBeNull();

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a viewer sees no single sign-on setting, and once it is required is pointed to the single sign-on button', async () => {
    const tenant = await h.tenant('Sso Viewer Co');
    const viewer = await h.user(tenant, 'viewer');
    const setting = {
      issuer: 'https://idp.example.test', client_id: 'ugs', client_secret: SECRET, allowed_domains: [uniqueDomain()], enforce: true,
    };
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await signIn(page, base, viewer.email, undefined, '/settings');
      await expect.poll(() => page.getByRole('region', { name: 'Organization settings' }).isVisible()).toBe(true);
      expect(await ssoRegion(page).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Turn off single sign-on' }).count()).toBe(0);
      expect((await h.call('PUT', '/api/v1/tenant/sso', { token: viewer.token, body: setting })).statusCode).toBe(403);
      expect((await h.call('GET', '/api/v1/tenant/sso', { token: viewer.token })).statusCode).toBe(403);

      // The admin requires single sign-on: the viewer's password is refused, with the way to go.
      expect((await h.call('PUT', '/api/v1/tenant/sso', { token: tenant.adminToken, body: setting })).statusCode).toBe(200);
      const refusal = await h.call('POST', '/api/v1/auth/login', { body: { email: viewer.email, password: TEST_PASSWORD } });
      expect(refusal.json()).toMatchObject({ code: 'sso_required' });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
      await page.getByLabel('Email').fill(viewer.email);
      await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect.poll(() => alertText(page)).toBe(refusal.json().error);
      expect(refusal.json().error).toContain('Sign in with single sign-on');
      // Drawn as the primary action once the password was refused for it.
      expect(await page.getByRole('button', { name: 'Sign in with single sign-on' }).getAttribute('class')).toBe('button');
      expect(await page.getByRole('button', { name: 'Sign in', exact: true }).getAttribute('class')).toBe('button secondary');
      await screenshot(page, 'sign-in-sso-required');

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the sign-in page shows the sentence of a refusal code, never text from the URL', async () => {
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      await page.goto(`${base}/sign-in?sso_error=domain_not_allowed`);
      await expect.poll(() => alertText(page)).toBe(SSO_REFUSALS.domain_not_allowed);

      for (const code of ['<script>alert(1)</script>', 'constructor', 'Your account is locked, call +1 555 0100']) {
        await page.goto(`${base}/sign-in?sso_error=${encodeURIComponent(code)}`);
        await expect.poll(() => alertText(page)).toBe(GENERIC_REFUSAL);
        expect(await page.locator('#root').innerHTML()).not.toContain(code.slice(0, 12));
      }

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the single sign-on button asks for the email, then starts at the service, which sends back the reason it cannot', async () => {
    const { context, page, errors, foreign, requests } = await openConsole(browser, base);
    try {
      await page.goto(`${base}/sign-in?next=${encodeURIComponent('/alerts?status=open')}`);
      const button = page.getByRole('button', { name: 'Sign in with single sign-on' });
      await button.click();
      await expect.poll(() => alertText(page)).toBe('Enter your work email first: single sign-on finds your organization from it.');
      expect(await page.evaluate<string>('document.activeElement.type')).toBe('email');

      const email = `someone@${uniqueDomain()}`;
      await page.getByLabel('Email').fill(email);
      await button.click();
      await expect.poll(() => new URL(page.url()).searchParams.get('sso_error')).toBe('not_configured');
      await expect.poll(() => alertText(page)).toBe(SSO_REFUSALS.not_configured);
      const start = requests.find((request) => new URL(request.url()).pathname === '/api/v1/auth/sso/start');
      expect(Object.fromEntries(new URL(start!.url()).searchParams)).toEqual({ email, return_to: '/alerts?status=open' });

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the code the service sends back is taken out of the URL and exchanged for a session; a used one is refused', async () => {
    const tenant = await h.tenant('Sso Landing Co');
    // What the callback leaves after a sign-in at the provider (tested end to end in test/sso/).
    const code = randomSecret('ugx_');
    const now = h.clock.now();
    await h.db.insertInto('sso_exchanges').values({
      tenant_id: tenant.tenantId, code_hash: sha256Hex(code), user_id: tenant.adminId,
      created_at: now, expires_at: new Date(now.getTime() + 120_000),
    }).execute();
    const { context, page, errors, foreign } = await openConsole(browser, base);
    try {
      // The exchange held back a moment, to see the page while it runs.
      let release = () => {};
      const held = new Promise<void>((resolve) => { release = resolve; });
      await page.route('**/api/v1/auth/sso/exchange', async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${base}/sign-in?next=%2Falerts#sso_code=${code}`);
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Signing you in…');
      expect(new URL(page.url()).hash).toBe('');
      expect(await page.getByLabel('Password', { exact: true }).count()).toBe(0);
      release();
      await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
      expect(new URL(page.url()).pathname).toBe('/alerts');
      expect(await page.evaluate<string>('JSON.parse(sessionStorage.getItem("ugs.session")).user.email')).toBe(tenant.adminEmail);
      await page.unroute('**/api/v1/auth/sso/exchange');

      // The same code again, in a new tab: refused, and the page says to start again.
      const again = await openConsole(browser, base);
      try {
        await again.page.goto(`${base}/sign-in?next=%2Falerts#sso_code=${code}`);
        await expect.poll(() => alertText(again.page)).toBe('This sign-in link is not valid any more. Start again.');
        expect(new URL(again.page.url()).hash).toBe('');
        // The form comes back once the refusal is shown: waited for, not read in the same tick.
        await expect.poll(() => again.page.getByRole('button', { name: 'Sign in with single sign-on' }).isVisible()).toBe(true);
        expect(unexpectedErrors(again.errors)).toEqual([]);
      } finally {
        await again.context.close();
      }

      expect(foreign()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
