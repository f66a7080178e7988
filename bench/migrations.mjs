// How long each migration takes on a PostgreSQL database that holds N interactions, and how long
// writes to interactions wait meanwhile:
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/migrations.mjs [rows]
// (default 1,000,000 rows; `npm run build` first). A scratch database is migrated by v0.1.0's
// `ugs migrate` and seeded by SQL (one tenant: N interactions over 60 days, a tenth with a card
// number, 5 % with an alert), then upgraded release by release, each by its own CLI's `migrate`
// (scripts/install-release.mjs installs them), and last by this build's. A migration's time is
// read from the timestamps schema_migrations records as each one ends (the first of a step is
// counted from the command's start, less the time of a `migrate` with nothing to do). Meanwhile
// another connection inserts an interaction every 100 ms: the longest wait is how long the
// step kept writes out. After each step that has count tables, that release serves until its
// compaction has folded every count delta, so that the next step finds the counts as a running
// service leaves them. The database is dropped at the end (BENCH_KEEP_DATABASE=true keeps it).
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { installRelease, RELEASES } from '../scripts/install-release.mjs';
import { BENCH_ENCRYPTION_KEY } from './lib/service.mjs';

const adminUrl = process.env.BENCH_DATABASE_URL;
if (!adminUrl) throw new Error('BENCH_DATABASE_URL: a PostgreSQL server the bench may create a database on');
const rows = Number(process.argv[2] ?? 1_000_000);
const name = `ugs_bench_migrations_${randomBytes(4).toString('hex')}`;
const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
const currentCli = join(import.meta.dirname, '../dist/cli.js');

const query = async (connection, text, values) => {
  const client = new pg.Client({ connectionString: connection });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
};
const cli = (path, args) => new Promise((resolve, reject) => {
  const started = performance.now();
  execFile(process.execPath, [path, ...args], {
    env: { PATH: process.env.PATH, DATABASE_URL: url, DATA_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY, LOG_LEVEL: 'warn' },
  }, (error, stdout, stderr) => (error ? reject(new Error(`${args.join(' ')}: ${stderr || error.message}`))
    : resolve({ ms: performance.now() - started, startedAt: Date.now() - (performance.now() - started), stdout })));
});

const versions = Object.keys(RELEASES);
console.log(`installing ${versions.map((v) => `v${v}`).join(', ')} (each with its own dependencies)`);
const releases = await Promise.all(versions.map(installRelease));

await query(adminUrl, `create database ${name}`);
try {
  await cli(releases[0].cli, ['migrate']);
  await cli(releases[0].cli, ['tenant', 'create', '--name', 'Bench', '--admin-email', 'bench@bench.test', '--admin-password', 'Bench-Password-1']);
  const seeding = performance.now();
  await seed(rows);
  console.log(`v${versions[0]}: ${rows.toLocaleString('en')} interactions seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

  const steps = [...releases.slice(1).map((r) => ({ label: `v${r.version}`, cli: r.cli })), { label: 'this build', cli: currentCli }];
  for (const step of steps) {
    const idle = (await cli(step.cli, ['version'])).ms;
    const before = Number((await query(url, 'select count(*) as n from schema_migrations')).rows[0].n);
    const probe = writeProbe();
    let run;
    for (let attempt = 1; !run; attempt += 1) {
      // PostgreSQL may break a deadlock between the migrations and the probe's insert by cancelling the migrations.
      run = await cli(step.cli, ['migrate']).catch((error) => {
        if (attempt === 3 || !String(error).includes('deadlock detected')) throw error;
        console.log(`${step.label}: migrate cancelled by PostgreSQL to break a deadlock with an insert into interactions; again`);
      });
    }
    const { longest: longestWait, failed } = await probe.stop();
    if (failed.length > 0) console.log(`${step.label}: ${failed.length} of the probe's inserts failed: ${[...new Set(failed)].join('; ')}`);
    const noop = (await cli(step.cli, ['migrate'])).ms;
    const applied = (await query(url, 'select name, timestamp from schema_migrations order by name offset $1', [before])).rows;
    let previous = run.startedAt + noop;
    console.log(`${step.label}: migrate ${(run.ms / 1000).toFixed(2)} s (a migrate with nothing to do: ${(noop / 1000).toFixed(2)} s, the CLI alone ${(idle / 1000).toFixed(2)} s); writes to interactions waited up to ${(longestWait / 1000).toFixed(2)} s`);
    for (const migration of applied) {
      const ended = Date.parse(migration.timestamp);
      console.log(`  ${migration.name}: ${(Math.max(0, ended - previous) / 1000).toFixed(2)} s`);
      previous = ended;
    }
    if (step !== steps.at(-1) && (await query(url, `select to_regclass('interaction_count_deltas') as t`)).rows[0].t) {
      const folding = performance.now();
      await serveUntilFolded(step.cli);
      const counts = (await query(url, 'select count(*) as n from interaction_counts')).rows[0].n;
      console.log(`  (${step.label} served until its count deltas were folded: ${((performance.now() - folding) / 1000).toFixed(1)} s, ${counts} count rows)`);
    }
  }
} finally {
  if (process.env.BENCH_KEEP_DATABASE !== 'true') await query(adminUrl, `drop database if exists ${name} with (force)`);
  else console.log(`kept ${url}`);
}

/** Runs `serve` until interaction_count_deltas and alert_count_deltas are empty (at most 10 minutes). */
async function serveUntilFolded(path) {
  const child = spawn(process.execPath, [path, 'serve'], {
    env: { PATH: process.env.PATH, DATABASE_URL: url, DATA_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const alerts = (await query(url, `select to_regclass('alert_count_deltas') as t`)).rows[0].t;
      const { rows: [left] } = await query(url, `select (select count(*) from interaction_count_deltas)
        ${alerts ? '+ (select count(*) from alert_count_deltas)' : ''} as n`);
      if (Number(left.n) === 0) break;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error('the deltas were not folded');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function seed(count) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const [{ id: tenant }] = (await client.query('select id from tenants')).rows;
    const policy = '00000000-0000-4000-8000-000000000001';
    await client.query(`insert into policies (tenant_id, id, name, description, action, severity, enabled, conditions, created_at, updated_at)
      values ($1, $2, 'No card numbers', '', 'block', 'high', true, '{"classification_types":["CREDIT_CARD"]}', now(), now())`, [tenant, policy]);
    await client.query(`insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type, content_metadata,
        classifications, risk_score, direction, source, user_id, policy_decisions)
      select $1, ('00000000-0000-4000-a000-' || lpad(to_hex(n), 12, '0'))::uuid,
        date_trunc('milliseconds', now() - (n * interval '5184 milliseconds')),
        (array['openai','anthropic','mistral','copilot'])[1 + n % 4], md5(n::text) || md5((n + 1)::text),
        (array['prompt','completion','tool_call','embedding'])[1 + n % 4], '{}',
        case when n % 10 = 0 then '[{"type":"CREDIT_CARD","value":"4111 **** **** 1111","score":0.98,"start":0,"end":19}]'::jsonb else '[]'::jsonb end,
        (n % 100) / 100.0, case when n % 3 = 0 then 'inbound' else 'outbound' end,
        (array['browser_extension','proxy','endpoint_agent','api'])[1 + n % 4],
        case when n % 2 = 0 then ('00000000-0000-4000-b000-' || lpad(to_hex(n % 1000), 12, '0'))::uuid end,
        case when n % 20 = 0 then jsonb_build_array(jsonb_build_object('policy_id', $2::text, 'policy_name', 'No card numbers', 'action', 'block', 'matched_conditions', 1)) else '[]'::jsonb end
      from generate_series(1, $3::int) n`, [tenant, policy, count]);
    await client.query(`insert into interaction_classification_types (tenant_id, interaction_id, classification_type, timestamp)
      select tenant_id, id, 'CREDIT_CARD', timestamp from interactions where classifications <> '[]'::jsonb`);
    await client.query(`insert into alerts (tenant_id, id, interaction_id, policy_id, policy_name, severity, status, created_at)
      select tenant_id, gen_random_uuid(), id, $1, 'No card numbers', 'high', case when (hashtext(id::text) & 1) = 0 then 'open' else 'resolved' end, timestamp
      from interactions where jsonb_array_length(policy_decisions) > 0`, [policy]);
    await client.query('analyze');
  } finally {
    await client.end();
  }
}

/** Inserts an interaction every 100 ms on a connection of its own; `stop` gives the longest insert and the failures. */
function writeProbe() {
  const client = new pg.Client({ connectionString: url });
  let running = true;
  let longest = 0;
  const failed = [];
  const done = (async () => {
    await client.connect();
    const [{ id: tenant }] = (await client.query('select id from tenants')).rows;
    while (running) {
      const started = performance.now();
      await client.query(`insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type, content_metadata,
          classifications, risk_score, direction, source, user_id, policy_decisions)
        values ($1, gen_random_uuid(), date_trunc('milliseconds', now()), 'openai', md5(random()::text) || md5(random()::text), 'prompt', '{}',
          '[]', 0.1, 'outbound', 'api', null, '[]')`, [tenant]).catch((error) => failed.push(error.message));
      longest = Math.max(longest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await client.end();
  })();
  return { stop: async () => { running = false; await done; return { longest, failed }; } };
}
