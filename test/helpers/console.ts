import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { expect } from 'vitest';
import type { StoreKind } from '../../src/platform/store/store.js';
import { Harness, TEST_PASSWORD, type HarnessOptions } from './harness.js';
import { listen } from './listening.js';
import { tempDir } from './process.js';

/** The service on a real store, listening on loopback, serving the built console (dist/console). */
export async function startConsoleService(kind: StoreKind, options: HarnessOptions = {}): Promise<{ h: Harness; base: string }> {
  const h = await Harness.start(kind, options);
  const base = await listen(h.app);
  return { h, base };
}

export interface RecordedPage {
  context: BrowserContext;
  page: Page;
  /** Every request the page made, to this origin or elsewhere. */
  requests: Request[];
  /** Console errors, uncaught exceptions and CSP violations. */
  errors: string[];
  /** URLs of requests that went to another origin (must stay empty). */
  foreign(): string[];
}

/** A fresh browser context (no shared session) at 1280 px wide, recording requests and errors. */
export async function openConsole(browser: Browser, base: string): Promise<RecordedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const requests: Request[] = [];
  const errors: string[] = [];
  context.on('request', (request) => requests.push(request));
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  const foreign = () =>
    requests.map((r) => r.url()).filter((url) => !url.startsWith('data:') && new URL(url).origin !== base);
  return { context, page, requests, errors, foreign };
}

/** Signs in through the sign-in form and waits for the signed-in layout. */
export async function signIn(page: Page, base: string, email: string, password = TEST_PASSWORD, path = '/'): Promise<void> {
  await page.goto(`${base}${path}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  // Generous: on a loaded two-core machine the first load and sign-in took over a second.
  await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), { timeout: 15_000 }).toBe(true);
}

/**
 * Console errors that are not the app's: a 4xx answer the page asked for on purpose is logged by
 * Chromium as "Failed to load resource"; a test that expects one filters it with this.
 */
export function unexpectedErrors(errors: string[]): string[] {
  return errors.filter((text) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(text));
}

/**
 * Saves a screenshot of the page: into docs/console/ when UPDATE_SCREENSHOTS=1 (how
 * docs/console.md's pictures are made), else into a temporary folder.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs', 'console') : tempDir('ugs-console-');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
