// Finding a detected value again, on the queries seed: `POST /api/v1/signals/lookup` and the first page of
// `GET /api/v1/interactions?fingerprint=`. The seed's fingerprints are synthetic (it has no tenant keys): they
// are the distractors. The values looked up are sent through the API, so their fingerprints are the service's:
// values seen 0, 1, 100 and 10,000 times (single creates and batches of 500). They are measured at once after
// that ingest, as a customer's database holds them: no VACUUM since, autovacuum off as on the CI cluster, so the
// new rows' heap pages are not all-visible and the lookup reads them. Then the store is vacuumed and the lookup
// measured again (its index-only scan then skips the heap). EXPLAIN (ANALYZE, BUFFERS) of the lookup of the
// value seen 10,000 times, and of its list's first page and total, is printed for both states.
import { createHash, randomBytes } from 'node:crypto';
import { latency, send } from './queries-measure.mjs';
import { figure } from './report.mjs';
import { ADMIN, api, apiKey, login, startService } from './service.mjs';

/** How many values are seen how many times (a few of the rarer ones, so that each request does not read one entry). */
const GROUPS = [{ seen: 0, values: 10 }, { seen: 1, values: 10 }, { seen: 100, values: 2 }, { seen: 10_000, values: 1 }];
const USERS = 200;
const BATCH = 500;
const PAGE = 50;
const TARGET = { lookup: 10, page: 50 };
/** Timed lookups per figure (at 1,000 its p99 is the 10th slowest); lists take the bench's usual 200. */
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 1000);

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const asUuid = (hex) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
const times = (n) => (n === 1 ? 'once' : `${n.toLocaleString('en')} times`);

/** The i-th interaction holding `value`: the value as an EMAIL beside a PHONE seen once, from one of USERS users. */
function holding(value, nonce, i) {
  return {
    platform_id: 'chatgpt', content_hash: sha256(`${value}:${i}`), risk_score: 0.5, source: 'proxy',
    user_id: asUuid(sha256(`lookup user ${nonce} ${i % USERS}`)),
    classifications: [
      { type: 'EMAIL', value, score: 0.95, start: 10, end: 10 + value.length },
      { type: 'PHONE', value: `+33 6 ${String(i).padStart(8, '0')}`, score: 0.8, start: 80, end: 94 },
    ],
  };
}

/** Sends every group's values through the API: `[{ seen, value, fingerprint, users }]` (no fingerprint for the unseen). */
async function sendValues(base, token, nonce) {
  const key = await apiKey(base, token);
  const values = [];
  for (const { seen, values: count } of GROUPS) {
    for (let v = 0; v < count; v += 1) {
      const value = `seen${seen}.${v}.${nonce}@lookup.bench.test`;
      let fingerprint;
      if (seen > 0) {
        const created = await api(base, key, 'POST', '/api/v1/interactions', holding(value, nonce, 0));
        fingerprint = created.classifications.find((c) => c.type === 'EMAIL').fingerprint;
        for (let lo = 1; lo < seen; lo += BATCH) {
          const items = Array.from({ length: Math.min(seen, lo + BATCH) - lo }, (_, k) => holding(value, nonce, lo + k));
          const { stored } = await api(base, key, 'POST', '/api/v1/interactions/batch', items);
          if (stored !== items.length) throw new Error(`batch of ${items.length}: ${stored} stored`);
        }
      }
      values.push({ seen, value, fingerprint, users: Math.min(seen, USERS) });
    }
  }
  return values;
}

const lookupOf = (value) => ({ method: 'POST', path: '/api/v1/signals/lookup', body: { type: 'EMAIL', value } });
const pageOf = (fingerprint) => `/api/v1/interactions?fingerprint=${fingerprint}&limit=${PAGE}`;

/** What the lookup and the list's first page answer for each value, against what was sent: the wrong answers. */
async function wrongAnswers(base, token, values) {
  let wrong = 0;
  for (const entry of values) {
    const found = JSON.parse((await send(base, token, lookupOf(entry.value))).body);
    entry.fingerprint ??= found.fingerprint;
    const seenRight = found.fingerprint === entry.fingerprint && found.interactions === entry.seen && found.users === entry.users
      && (found.first_seen === null) === (entry.seen === 0) && (found.last_seen === null) === (entry.seen === 0);
    const page = JSON.parse((await send(base, token, pageOf(entry.fingerprint))).body);
    const pageRight = page.total === entry.seen && page.data.length === Math.min(entry.seen, PAGE)
      && page.data.every((row) => row.classifications.some((c) => c.fingerprint === entry.fingerprint && c.value === entry.value));
    if (!seenRight || !pageRight) wrong += 1;
  }
  return wrong;
}

/** The 404 of an unknown id at concurrency 4 and 1, `LOOKUPS` times: the limit of every figure below. */
async function floors(base, token) {
  const path = `/api/v1/interactions/${asUuid(sha256('unknown'))}`;
  return {
    4: await latency(base, token, path, { expect: 404, requests: LOOKUPS }),
    1: await latency(base, token, path, { expect: 404, requests: LOOKUPS, concurrency: 1 }),
  };
}

/** p50, p95 and p99 of one measure, each beside the same percentile of the floor. */
function percentiles(table, scenario, measured, floor, { concurrency, target, on }) {
  for (const q of ['p50', 'p95', 'p99']) {
    table.push(figure({
      scenario, name: `${q} ms`, value: measured[q], limit: floor[q], limitIs: `${q} of the 404, concurrency ${concurrency}`,
      target: q === on ? { op: '<=', value: target } : undefined,
    }));
  }
  if (measured.errors) table.push(figure({ scenario, name: 'errors', value: measured.errors, target: { op: '==', value: 0 } }));
}

async function measureLookups(table, base, token, values, floor, state) {
  for (const { seen } of GROUPS) {
    const group = values.filter((entry) => entry.seen === seen);
    for (const concurrency of [4, 1]) {
      const measured = await latency(base, token, group.map((entry) => lookupOf(entry.value)), { requests: LOOKUPS, concurrency });
      percentiles(table, `lookup, seen ${times(seen)}, ${state}, concurrency ${concurrency}`, measured, floor[concurrency],
        { concurrency, target: TARGET.lookup, on: 'p99' });
    }
  }
}

async function measurePages(table, base, token, values, floor, state) {
  for (const { seen } of GROUPS) {
    const group = values.filter((entry) => entry.seen === seen);
    const measured = await latency(base, token, group.map((entry) => pageOf(entry.fingerprint)));
    percentiles(table, `list ?fingerprint=, seen ${times(seen)}, first page of ${PAGE}, ${state}`, measured, floor[4],
      { concurrency: 4, target: TARGET.page, on: 'p95' });
  }
}

/**
 * A statement under EXPLAIN (ANALYZE, BUFFERS), run as the service runs it: its role and the tenant's scope, so
 * that row-level security keeps the tenant's rows (the owner's scope would not apply to a compiled statement).
 * Its plan, its first scan, the heap fetches of all its scans and the execution time.
 */
async function explain(store, tenantId, { sql: text, parameters }) {
  const { CompiledQuery } = await import('kysely');
  const { setSettings, settingsOf } = await import('../../dist/platform/store/scope-settings.js');
  const { onlyTenants } = await import('../../dist/platform/store/tenant-scope.js');
  const plan = await store.db.transaction().execute(async (tx) => {
    await tx.executeQuery(setSettings(settingsOf(onlyTenants([tenantId])), true));
    return tx.executeQuery(CompiledQuery.raw(`explain (analyze, buffers) ${text}`, [...parameters]));
  });
  return planFigures(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
}

/** The lookup's statement (src/modules/interactions/signal-lookup.ts), with the store opened directly. */
function explainLookup(store, tenantId, fingerprint) {
  return explain(store, tenantId, {
    sql: `select coalesce(sum(seen), 0) as interactions, count(user_id) as users, min(first_seen) as first_seen, max(last_seen) as last_seen
    from (select user_id, count(*) as seen, min(timestamp) as first_seen, max(timestamp) as last_seen
      from interaction_fingerprints where tenant_id = $1 and fingerprint = $2 group by user_id) as per_user`,
    parameters: [tenantId, fingerprint],
  });
}

/** The two statements of the list's first page, as the service builds them (its page, its exact total). */
async function explainList(store, tenantId, fingerprint) {
  const { listCriteriaOf } = await import('../../dist/modules/interactions/interactions.service.js');
  const { openPage, pageQuery } = await import('../../dist/modules/interactions/interactions.list.js');
  const { countQuery } = await import('../../dist/modules/interactions/interactions.totals.js');
  const criteria = listCriteriaOf({ fingerprint });
  const page = openPage(criteria, { limit: PAGE, offset: 0, cursor: undefined });
  return {
    page: await explain(store, tenantId, pageQuery(store.db, tenantId, criteria, page).compile()),
    total: await explain(store, tenantId, countQuery(store.db, tenantId, criteria).compile()),
  };
}

function planFigures(text) {
  return {
    text,
    scan: /(Index Only Scan|Index Scan|Bitmap Heap Scan|Seq Scan)/.exec(text)?.[1] ?? 'unknown',
    heapFetches: [...text.matchAll(/Heap Fetches: (\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0),
    ms: Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1] ?? NaN),
  };
}

async function openStore(env) {
  const { openOwnerStore } = await import('./owner-store.mjs');
  return openOwnerStore(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL, poolSize: 1 } : { dataDir: env.DATA_DIR });
}

/** Warm-up (JIT, caches), unmeasured: lookups and pages of values that the store does not hold. */
async function warmUp(base, token, nonce) {
  const requests = Array.from({ length: 10 }, (_, v) => [lookupOf(`warm-up.${v}.${nonce}@lookup.bench.test`),
    pageOf(`fp_${randomBytes(32).toString('base64url')}`)]).flat();
  await latency(base, token, requests, { requests: 200 });
}

/**
 * Sends the values, measures at once, then (service stopped, the store opened directly) EXPLAINs, vacuums
 * interaction_fingerprints, EXPLAINs again, and measures the lookups on a new service. Prints its table and the plans.
 */
export async function lookups(label, seed, rows) {
  const nonce = randomBytes(4).toString('hex');
  const table = [];
  const plans = [];
  let values;
  let service = await startService(seed.env);
  try {
    const token = await login(service.base, ADMIN);
    await warmUp(service.base, token, nonce);
    const floor = await floors(service.base, token);
    console.log(`  sending the looked-up values through the API (${GROUPS.map(({ seen, values: n }) => `${n} x seen ${times(seen)}`).join(', ')})`);
    const sentAt = performance.now();
    values = await sendValues(service.base, token, nonce);
    console.log(`  sent in ${Math.round(performance.now() - sentAt)} ms; measuring at once`);
    const state = 'after API ingest, no VACUUM';
    table.push(figure({ scenario: 'lookup and list', name: 'answers not as sent (count, users, dates, total, page)',
      value: await wrongAnswers(service.base, token, values), target: { op: '==', value: 0 } }));
    await measureLookups(table, service.base, token, values, floor, state);
    await measurePages(table, service.base, token, values, floor, state);
  } finally {
    await service.stop();
  }
  const hot = values.find((entry) => entry.seen === 10_000);
  const store = await openStore(seed.env);
  try {
    const { sql } = await import('kysely');
    if (seed.env.DATABASE_URL) {
      const autovacuum = (await sql`select setting from pg_settings where name = 'autovacuum'`.execute(store.db)).rows[0].setting;
      console.log(`  autovacuum: ${autovacuum}`);
    }
    for (const [state, step] of [['after API ingest, no VACUUM', async () => {}],
      ['after VACUUM interaction_fingerprints', () => sql`vacuum interaction_fingerprints`.execute(store.db)]]) {
      await step();
      const { page, total } = await explainList(store, seed.tenantId, hot.fingerprint);
      const lookup = await explainLookup(store, seed.tenantId, hot.fingerprint);
      for (const [name, plan] of [['lookup', lookup], [`list's first page`, page], [`list's total`, total]]) {
        plans.push([`${name}, value seen ${times(hot.seen)}, ${state}`, plan.text]);
        const scenario = `EXPLAIN ${name}, seen ${times(hot.seen)}, ${state}`;
        table.push(figure({ scenario, name: `${plan.scan}: heap fetches (every scan)`, value: plan.heapFetches }));
        table.push(figure({ scenario, name: 'execution time ms', value: plan.ms }));
      }
    }
  } finally {
    await store.close();
  }
  service = await startService(seed.env);
  try {
    const token = await login(service.base, ADMIN);
    await latency(service.base, token, values.map((entry) => lookupOf(entry.value)), { requests: 200 });
    const floor = await floors(service.base, token);
    await measureLookups(table, service.base, token, values, floor, 'after VACUUM');
  } finally {
    await service.stop();
  }
  console.log(`\n${label}: lookup of detected values at ${rows.toLocaleString('en')} interactions (${LOOKUPS} lookups, 200 pages per figure)`);
  console.table(table);
  for (const [what, text] of plans) console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of the ${what}:\n${text}`);
}
