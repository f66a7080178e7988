// The queries bench's data: N interactions in the bootstrap tenant (plus a small second tenant), seeded
// through SQL for speed with realistic, deterministic distributions, then counted by the service's own rebuild
// and compaction. PostgreSQL keeps its seeded database between runs (a marker table says what it holds);
// the embedded store gets a fresh folder each run.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.mjs';
import { startService } from './service.mjs';
import { withClient } from './stores.mjs';

const SEED_VERSION = 'queries-4';
const DAY_MS = 86_400_000;
export const SPAN_DAYS = 180;
/** Rows per insert statement. */
const CHUNK = 500_000;

// Cumulative weights out of 10,000 (the brief's distributions; bench/lib/queries-live-data.mjs draws the same).
export const PLATFORMS = [['chatgpt', 4000], ['copilot', 5800], ['claude', 7200], ['gemini', 8100], ['mistral', 8700], ['perplexity', 9100],
  ['deepseek', 9400], ['meta-ai', 9600], ['grok', 9750], ['poe', 9850], ['huggingchat', 9930], ['you.com', 10000]];
export const TYPES = [['EMAIL', 4000], ['PHONE', 5500], ['PERSON_NAME', 7000], ['IP_ADDRESS', 7800], ['CREDIT_CARD', 8300], ['IBAN', 8800],
  ['API_KEY', 9200], ['NIR', 9600], ['SIRET', 9800], ['SSN', 10000]];
export const INTERACTION_TYPES = [['prompt', 5500], ['completion', 9000], ['tool_call', 9700], ['embedding', 10000]];
export const SOURCES = [['browser_extension', 5500], ['proxy', 8000], ['endpoint_agent', 9500], ['api', 10000]];
const SEVERITIES = [['low', 4000], ['medium', 7000], ['high', 9000], ['critical', 10000]];

/** A uniform 0..modulus-1 from the row number and a salt. */
const u = (salt, modulus = 10000) => `((hashint8(n * 64 + ${salt}) & 2147483647) % ${modulus})`;
const pick = (choices, value) => `case ${choices.map(([name, upTo]) => `when ${value} < ${upTo} then '${name}'`).join(' ')} end`;

/** 10 % of rows share their content hash with others (a pool of 100,000, so ~10 rows each at 10 M). */
export const pooledHash = (md5, k) => md5(`pool${k}`) + md5(`pool2-${k}`);

/**
 * With `validated`, classifications carry the flag the service sets when it validates signals: 70 % of
 * those of a checkable type (the rest failing their check), never for the others.
 */
const VALIDATED = ` || jsonb_build_object('validated', t.type in ('CREDIT_CARD', 'IBAN', 'NIR', 'SIRET', 'EMAIL', 'IP_ADDRESS')
            and (hashint8(n * 64 + 40 + k) & 2147483647) % 10 < 7)`;

/**
 * The k-th classification's fingerprint, synthetic (`fp_` and 43 base64url characters, as the service writes
 * them, but not keyed: the seed has no tenant keys, so no value looked up through the API finds a seeded row).
 * Half the values come from a pool of 3,334 per type and position (~35 rows each at 10 M interactions), half
 * are seen once; two classifications of one interaction never share a value, as the service's rows do not.
 */
const FINGERPRINT = `'fp_' || translate(rtrim(encode(sha256(convert_to(t.type || ':' || case
            when (hashint8(n * 64 + 50 + k) & 2147483647) % 2 = 0 then 'c' || k || '-' || (hashint8(n * 64 + 53 + k) & 2147483647) % 3334
            else 'u' || n || '-' || k end, 'UTF8')), 'base64'), '='), '+/', '-_')`;

function interactionsSql(tenantId, lo, hi, start, stepMs, validated) {
  return `
    insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type, content_metadata,
      classifications, risk_score, direction, source, user_id, policy_decisions)
    select '${tenantId}', md5('${tenantId}:' || n)::uuid,
      date_trunc('milliseconds', timestamptz '${start.toISOString()}' + (n / 10)::bigint * ${stepMs} * interval '1 millisecond'),
      ${pick(PLATFORMS, u(1))},
      case when ${u(2)} < 1000 then md5('pool' || ${u(3, 100000)}) || md5('pool2-' || ${u(3, 100000)})
        else md5('h' || n) || md5('g' || n) end,
      ${pick(INTERACTION_TYPES, u(4))},
      jsonb_build_object('tokens', ${u(5, 4000)}, 'model', 'model-' || ${u(14, 7)}),
      case when ${u(6)} < 3500 then (
        select jsonb_agg(jsonb_build_object('type', t.type,
          'value', '[redacted]', 'score', 0.9, 'start', k * 10, 'end', k * 10 + 8,
          'fingerprint', ${FINGERPRINT})${validated ? VALIDATED : ''})
        from generate_series(1, 1 + ${u(7, 3)}) as k,
          lateral (select ${pick(TYPES, `((hashint8(n * 64 + 20 + k) & 2147483647) % 10000)`)} as type) t)
        else '[]'::jsonb end,
      case when ${u(8)} < 6500 then 0 else round((0.05 + 0.95 * power(${u(9)} / 9999.0, 2))::numeric, 2)::float8 end,
      case when ${u(10)} < 6000 then 'outbound' else 'inbound' end,
      ${pick(SOURCES, u(11))},
      case when ${u(12)} < 9000 then md5('user' || ${u(13, 5000)})::uuid end,
      '[]'::jsonb
    from generate_series(${lo}, ${hi}) as n`;
}

async function seedTenant(db, sql, tenantId, rows, end, log, validated) {
  const start = new Date(end.getTime() - SPAN_DAYS * DAY_MS);
  const stepMs = Math.max(1, Math.floor((SPAN_DAYS * DAY_MS) / Math.ceil(rows / 10)));
  for (let lo = 1; lo <= rows; lo += CHUNK) {
    const hi = Math.min(rows, lo + CHUNK - 1);
    await sql.raw(interactionsSql(tenantId, lo, hi, start, stepMs, validated)).execute(db);
    log(`  ${hi.toLocaleString('en')} / ${rows.toLocaleString('en')} interactions`);
  }
  await sql.raw(`insert into interaction_classification_types (tenant_id, interaction_id, classification_type, timestamp)
    select distinct i.tenant_id, i.id, c->>'type', i.timestamp
    from interactions i cross join lateral jsonb_array_elements(i.classifications) c where i.tenant_id = '${tenantId}'`).execute(db);
  // One row per classification (its values are distinct within an interaction by construction, see FINGERPRINT).
  await sql.raw(`insert into interaction_fingerprints (tenant_id, interaction_id, fingerprint, timestamp, user_id)
    select i.tenant_id, i.id, c->>'fingerprint', i.timestamp, i.user_id
    from interactions i cross join lateral jsonb_array_elements(i.classifications) c where i.tenant_id = '${tenantId}'`).execute(db);
  // 2 % of interactions raised an alert, 70 % of them still open.
  await sql.raw(`insert into alerts (tenant_id, id, interaction_id, policy_id, policy_name, severity, status, created_at)
    select tenant_id, md5('alert' || id)::uuid, id, md5('policy')::uuid, 'Seeded policy',
      ${pick(SEVERITIES, `((hashtext(id::text || 's') & 2147483647) % 10000)`)},
      case when (hashtext(id::text || 'o') & 2147483647) % 10 < 7 then 'open' else 'resolved' end, timestamp
    from interactions where tenant_id = '${tenantId}' and (hashtext(id::text) & 2147483647) % 50 = 0`).execute(db);
  return { start, end };
}

/**
 * Records the service's pass over earlier releases' values as done: the seed's rows stand for this release's, whose
 * values are sealed at ingest (the seed has no tenant keys to seal its placeholders). Left to run, the pass would
 * rewrite millions of rows in the background of every measure that starts a service on the seed.
 */
const VALUES_PASS_DONE = `insert into background_passes (name, position, completed_at, updated_at)
  values ('seal-interaction-values', null, now(), now())
  on conflict (name) do update set position = null, completed_at = excluded.completed_at, updated_at = excluded.updated_at
  where background_passes.completed_at is null`;

/**
 * Seeds `rows` interactions into the bootstrap tenant and a second tenant of `otherRows`, through `store.db`
 * (the project's own store opener, so PGlite and PostgreSQL alike): secondary indexes dropped and rebuilt
 * around the inserts, triggers (the counts') off during them, then the counts rebuilt and compacted.
 */
export async function seed(store, { rows, otherRows, log, validated = false }) {
  const { sql } = await import('kysely');
  const { compactAlertCounts, compactCounts } = await import('../../dist/modules/counts/compaction.js');
  const { rollUpUsage } = await import('../../dist/modules/rollups/usage-rollups.job.js');
  const db = store.db;
  const tenantId = (await sql`select id from tenants order by created_at limit 1`.execute(db)).rows[0].id;
  const otherId = (await sql`select md5('other tenant')::uuid as id`.execute(db)).rows[0].id;
  await sql`insert into tenants (id, name, created_at) values (${otherId}, 'Other', now()) on conflict do nothing`.execute(db);
  const end = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
  const startedAt = performance.now();
  const range = await db.connection().execute(async (conn) => {
    const indexes = (await sql`select indexname, indexdef from pg_indexes
      where tablename in ('interactions', 'interaction_classification_types', 'interaction_fingerprints', 'alerts')
        and indexname not in (select conname from pg_constraint)`.execute(conn)).rows;
    for (const { indexname } of indexes) await sql.raw(`drop index ${indexname}`).execute(conn);
    // Off for this session: the counts' triggers and the foreign-key checks (the rows are consistent by construction).
    await sql`set session_replication_role = replica`.execute(conn);
    const seeded = await seedTenant(conn, sql, tenantId, rows, end, log, validated);
    await seedTenant(conn, sql, otherId, otherRows, end, () => {}, validated);
    await sql`set session_replication_role = origin`.execute(conn);
    log(`  rows in ${Math.round((performance.now() - startedAt) / 1000)} s; building ${indexes.length} indexes`);
    for (const { indexdef } of indexes) await sql.raw(indexdef).execute(conn);
    return seeded;
  });
  log(`  indexes built at ${Math.round((performance.now() - startedAt) / 1000)} s; counting`);
  await sql`select interaction_counts_rebuild(null)`.execute(db);
  await sql`select alert_counts_rebuild(null)`.execute(db);
  // Until no delta is left: a fold moves nothing while an older transaction of the database is in
  // progress (seen at 1 M rows right after the rebuild), and the truncate below would then drop every count.
  const left = async (table) => Number((await sql`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0].n);
  for (const [table, compact] of [['interaction_count_deltas', compactCounts], ['alert_count_deltas', compactAlertCounts]]) {
    while ((await left(table)) > 0) {
      if ((await compact(db, 200_000)) === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  // The rebuild passed every count through the deltas, now empty but hundreds of MiB on disk.
  await sql`truncate interaction_count_deltas, alert_count_deltas`.execute(db);
  // The closed days rolled up as the service's worker would (every seeded day is closed).
  log(`  counted at ${Math.round((performance.now() - startedAt) / 1000)} s; rolling up the days`);
  await sql`vacuum analyze interactions, alerts, interaction_classification_types`.execute(db);
  await rollUpUsage(db, new Date());
  await sql.raw(VALUES_PASS_DONE).execute(db);
  await sql`vacuum analyze`.execute(db);
  const seconds = Math.round((performance.now() - startedAt) / 1000);
  log(`  seeded in ${seconds} s`);
  return { tenantId, ...range, seconds };
}

/**
 * The build's migrations, each named with a hash of its code. A seed made by a prefix of them is
 * kept (released migrations never change; the service applies the newer ones when it starts);
 * one made by others is seeded again.
 */
async function migrationFingerprints() {
  const folder = new URL('../../dist/platform/store/migrations/', import.meta.url);
  const files = readdirSync(folder).filter((name) => /^\d{4}_.*\.js$/.test(name)).sort();
  return files.map((name) => `${name}:${createHash('sha256').update(readFileSync(new URL(name, folder))).digest('hex').slice(0, 12)}`);
}

function seededByPrefixOf(storedMigrations, current) {
  let stored;
  try {
    stored = JSON.parse(storedMigrations);
  } catch {
    return false;
  }
  return Array.isArray(stored) && stored.length <= current.length && stored.every((migration, i) => migration === current[i]);
}

async function openStore(env) {
  const { openOwnerStore } = await import('./owner-store.mjs');
  return openOwnerStore(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL, poolSize: 2 } : { dataDir: env.DATA_DIR });
}

/** Starts the service once on an empty store so it migrates and bootstraps its admin, then seeds it. */
async function bootstrapAndSeed(env, options) {
  const service = await startService({ ...env, SERVE_WORKERS: 'false' });
  await service.stop();
  const store = await openStore(env);
  try {
    return await seed(store, options);
  } finally {
    await store.close();
  }
}

/**
 * The PostgreSQL database of a bench (`name`, the queries bench's by default), seeded unless it already holds
 * this seed: `{ env, url, tenantId, start, end, seconds }`. `validated` gives classifications their flag.
 */
export async function seededPostgres(adminUrl, {
  rows, otherRows, log, name = process.env.BENCH_QUERIES_DATABASE ?? 'ugs_bench_queries', validated = false,
}) {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const env = { DATABASE_URL: url.toString() };
  const migrations = await migrationFingerprints();
  const marker = { version: validated ? `${SEED_VERSION}+validated` : SEED_VERSION, rows, migration: JSON.stringify(migrations) };
  const existing = process.env.BENCH_RESEED === '1' ? undefined : await withClient(url.toString(), async (client) =>
    (await client.query('select * from bench_seed')).rows[0]).catch(() => undefined);
  if (existing && existing.version === marker.version && Number(existing.rows) === rows && seededByPrefixOf(existing.migration, migrations)) {
    log(`  reusing ${name} (${rows.toLocaleString('en')} rows, seeded ${existing.seeded_at.toISOString()}; BENCH_RESEED=1 seeds again)`);
    await withClient(url.toString(), (client) => client.query(VALUES_PASS_DONE)); // a seed made before this mark
    return { env, url: url.toString(), tenantId: existing.tenant_id, start: existing.span_start, end: existing.span_end, seconds: undefined };
  }
  await withClient(adminUrl, async (client) => {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name}`);
  });
  const seeded = await bootstrapAndSeed(env, { rows, otherRows, log, validated });
  await withClient(url.toString(), async (client) => {
    await client.query(`create table bench_seed (version text, rows bigint, migration text, tenant_id uuid,
      span_start timestamptz, span_end timestamptz, seeded_at timestamptz default now())`);
    await client.query('insert into bench_seed (version, rows, migration, tenant_id, span_start, span_end) values ($1, $2, $3, $4, $5, $6)',
      [marker.version, rows, marker.migration, seeded.tenantId, seeded.start, seeded.end]);
  });
  return { env, url: url.toString(), ...seeded };
}

/** A fresh embedded store seeded with `rows`: `{ env, dataDir, tenantId, start, end, seconds, dispose }`. */
export async function seededEmbedded({ rows, otherRows, log, validated = false }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'ugs-bench-queries-'));
  const dispose = onCleanup(() => rmSync(dataDir, { recursive: true, force: true }), { sync: true });
  const env = { DATA_DIR: dataDir };
  return { env, dataDir, dispose, ...(await bootstrapAndSeed(env, { rows, otherRows, log, validated })) };
}

/**
 * Runs `measure(label, seed, rows)` on the queries seed of each store BENCH_STORES keeps: a fresh
 * embedded store of `rowsEmbedded`, then PostgreSQL's kept database of `rows` (when `adminUrl` is set);
 * `afterPostgres` runs once PostgreSQL's measure is done.
 */
export async function onQueriesSeeds({ rows, rowsEmbedded, adminUrl, measure, afterPostgres }) {
  const log = (line) => console.log(line);
  const only = process.env.BENCH_STORES;
  if (!only || only === 'pglite') {
    console.log(`\nembedded store (PGlite): seeding ${rowsEmbedded.toLocaleString('en')} interactions`);
    const seed = await seededEmbedded({ rows: rowsEmbedded, otherRows: Math.ceil(rowsEmbedded / 100), log });
    try {
      await measure('embedded store (PGlite)', seed, rowsEmbedded);
    } finally {
      seed.dispose();
    }
  }
  if (adminUrl && (!only || only === 'postgres')) {
    console.log(`\nPostgreSQL: ${rows.toLocaleString('en')} interactions`);
    const seed = await seededPostgres(adminUrl, { rows, otherRows: Math.ceil(rows / 100), log });
    await measure('PostgreSQL', seed, rows);
    await afterPostgres?.(log);
  }
}
