// Lints the OpenAPI document the application serves (built from dist/, on an in-memory embedded
// store, never listening) with Redocly's `recommended` rules; any error or warning fails.
// Redocly runs offline: no telemetry, no update check, and no rule that fetches.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const { buildApp } = await import(join(root, 'dist/app.js'));
const { loadConfig } = await import(join(root, 'dist/config/config.js'));
const { openStore } = await import(join(root, 'dist/platform/store/store.js'));
const { systemClock } = await import(join(root, 'dist/kernel/clock.js'));

const store = await openStore({});
const deps = {
  config: loadConfig({ LOG_LEVEL: 'silent' }), store, clock: systemClock, lifecycle: { migrated: false, shuttingDown: false },
};
const app = await buildApp(deps);
const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
await app.close();
await store.close();
if (response.statusCode !== 200) {
  console.error(`GET /api/v1/openapi.json answered ${response.statusCode}: ${response.body}`);
  process.exit(1);
}

// The only findings accepted, each for a reason (Redocly's ignore file, written beside the document):
// the probes and the version accept any request and need no credentials, so no 4xx can answer them;
// single sign-on's start and callback are browser navigations, answered with a redirect (302), never a 2xx.
const ACCEPTED = {
  'operation-2xx-response': [
    '#/paths/~1api~1v1~1auth~1sso~1start/get/responses',
    '#/paths/~1api~1v1~1auth~1sso~1callback/get/responses',
  ],
  'operation-4xx-response': [
    '#/paths/~1healthz/get/responses',
    '#/paths/~1readyz/get/responses',
    '#/paths/~1api~1v1~1version/get/responses',
  ],
};

const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
writeFileSync(join(dir, 'openapi.json'), response.body);
writeFileSync(join(dir, '.redocly.lint-ignore.yaml'), `openapi.json:\n${Object.entries(ACCEPTED)
  .map(([rule, pointers]) => `  ${rule}:\n${pointers.map((p) => `    - '${p}'\n`).join('')}`).join('')}`);
const lint = spawnSync(join(root, 'node_modules/.bin/redocly'), [
  'lint', 'openapi.json', '--extends=recommended', '--format=json', '--max-problems=1000',
], {
  cwd: dir,
  encoding: 'utf8',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
rmSync(dir, { recursive: true, force: true });

// Redocly exits 0 when there are only warnings: the bar here is no warning either.
const json = lint.stdout.slice(lint.stdout.indexOf('{'));
let report;
try {
  report = JSON.parse(json);
} catch {
  console.error(lint.stdout, lint.stderr);
  process.exit(1);
}
for (const problem of report.problems) {
  const where = problem.location?.map((l) => l.pointer).join(', ') ?? '';
  console.error(`${problem.severity} ${problem.ruleId}: ${problem.message} (${where})`);
}
const { errors, warnings, ignored } = report.totals;
const expected = Object.values(ACCEPTED).flat().length;
console.log(`OpenAPI document (Redocly recommended): ${errors} errors, ${warnings} warnings, ${ignored} accepted`);
if (ignored !== expected) console.error(`${expected - ignored} accepted finding(s) no longer occur: remove them from ACCEPTED`);
process.exit(errors === 0 && warnings === 0 && ignored === expected ? 0 : 1);
