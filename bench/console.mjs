// The console in a real browser at size: part of `npm run bench` (BENCH_ONLY=console), or alone with
// `node bench/console.mjs` after `npm run build`. On the queries bench's seed (bench/lib/queries-seed.mjs:
// BENCH_QUERY_ROWS on PostgreSQL, default 10,000,000, in the same kept database; BENCH_QUERY_ROWS_EMBEDDED on
// the embedded store, default 1,000,000), with Debian's Chromium (CHROMIUM_PATH, default /usr/bin/chromium):
//   - the compressed JavaScript the first load transfers (sign-in, then the overview): target <= 300 KB;
//   - the interactions page until its first row shows, BENCH_CONSOLE_LOADS times each: opened in a new tab
//     (assets cached, as for a returning user), reached from the navigation, a filtered and sorted list, and
//     the next page by cursor; target < 1 s (p95). Limit: the same first-page API request alone, p95.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { latency } from './lib/queries-measure.mjs';
import { onQueriesSeeds } from './lib/queries-seed.mjs';
import { figure, percentile } from './lib/report.mjs';
import { ADMIN, login, startService } from './lib/service.mjs';
import { ADMIN_URL } from './lib/stores.mjs';

const ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 10_000_000);
const ROWS_EMBEDDED = Number(process.env.BENCH_QUERY_ROWS_EMBEDDED ?? 1_000_000);
const LOADS = Number(process.env.BENCH_CONSOLE_LOADS ?? 20);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TARGET = { jsKB: 300, pageMs: 1000 };
const FIRST_ROW = 'main tbody tr';

const launch = () => chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
});

async function signIn(page, base) {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Scripts a first visit transfers: sign-in, then the overview with its charts, in a new browser profile. */
async function firstLoadScripts(browser, base) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const scripts = [];
  page.on('requestfinished', (request) => {
    if (request.resourceType() === 'script') scripts.push(request);
  });
  try {
    await signIn(page, base);
    await page.locator('canvas').first().waitFor();
    await page.waitForLoadState('networkidle');
    const sizes = await Promise.all(scripts.map(async (request) => ({
      transferred: (await request.sizes()).responseBodySize,
      encoding: (await request.response())?.headers()['content-encoding'] ?? 'none',
    })));
    return {
      kb: sizes.reduce((sum, s) => sum + s.transferred, 0) / 1024,
      files: sizes.length,
      encodings: [...new Set(sizes.map((s) => s.encoding))].join(', '),
    };
  } finally {
    await context.close();
  }
}

/** Times `times` runs of `step` (which ends when the list's first row of the new page shows), in ms. */
async function timed(times, prepare, step) {
  const durations = [];
  for (let i = 0; i < times; i += 1) {
    await prepare?.();
    const started = performance.now();
    await step();
    durations.push(performance.now() - started);
  }
  return { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95) };
}

async function measure(label, seed, rows) {
  if (!existsSync(CHROMIUM)) {
    console.log(`  console bench skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
    return;
  }
  const table = [];
  const add = (spec) => table.push(figure(spec));
  const service = await startService(seed.env);
  const browser = await launch();
  try {
    const token = await login(service.base, ADMIN);
    const scripts = await firstLoadScripts(browser, service.base);
    add({ scenario: `first load (${scripts.files} scripts, ${scripts.encodings})`, name: 'JavaScript transferred, KB', value: scripts.kb, target: { op: '<=', value: TARGET.jsKB } });

    const api = await latency(service.base, token, '/api/v1/interactions?limit=50', { requests: LOADS * 2, concurrency: 1 });
    const apiFiltered = await latency(service.base, token, '/api/v1/interactions?limit=50&platform_id=claude&sort=-risk_score', { requests: LOADS * 2, concurrency: 1 });
    const limitIs = 'p95 of the same first-page API request alone';

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await signIn(page, service.base);
    const firstRow = () => page.locator(FIRST_ROW).first().waitFor();

    const newTab = await timed(LOADS, () => page.goto('about:blank'), async () => {
      await page.goto(`${service.base}/interactions`);
      await firstRow();
    });
    add({ scenario: 'interactions, opened in a new tab', name: 'until the first row shows, p95 ms', value: newTab.p95, limit: api.p95, limitIs, target: { op: '<', value: TARGET.pageMs } });

    const fromNav = await timed(LOADS, async () => {
      await page.goto(`${service.base}/settings`);
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
    }, async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Interactions' }).click();
      await firstRow();
    });
    add({ scenario: 'interactions, from the navigation', name: 'until the first row shows, p95 ms', value: fromNav.p95, limit: api.p95, limitIs, target: { op: '<', value: TARGET.pageMs } });

    const filtered = await timed(LOADS, () => page.goto('about:blank'), async () => {
      await page.goto(`${service.base}/interactions?platform_id=claude&sort=-risk_score`);
      await firstRow();
    });
    add({ scenario: 'interactions, platform_id + sort=-risk_score', name: 'until the first row shows, p95 ms', value: filtered.p95, limit: apiFiltered.p95, limitIs, target: { op: '<', value: TARGET.pageMs } });

    await page.goto(`${service.base}/interactions`);
    await firstRow();
    const next = await timed(LOADS, undefined, async () => {
      const before = await page.locator(FIRST_ROW).first().textContent();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.waitForFunction(([selector, text]) => {
        const row = document.querySelector(selector);
        return row !== null && row.textContent !== text;
      }, [FIRST_ROW, before]);
    });
    add({ scenario: `interactions, Next page by cursor (${LOADS} pages deep)`, name: 'until the new first row shows, p95 ms', value: next.p95, limit: api.p95, limitIs, target: { op: '<', value: TARGET.pageMs } });
    await context.close();
  } finally {
    await browser.close();
    await service.stop();
  }
  console.log(`\n${label}: the console in Chromium at ${rows.toLocaleString('en')} interactions in one tenant`);
  console.table(table);
}

export async function runConsole() {
  await onQueriesSeeds({ rows: ROWS, rowsEmbedded: ROWS_EMBEDDED, adminUrl: ADMIN_URL, measure });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runConsole();
