// The PostgreSQL limits of the ingest bench: pgbench runs, on the service's migrated database, transactions
// that write what creates write (bench/lib/ingest-rows.mjs) and nothing else: one interactions row, one
// webhook_messages row and one webhook_jobs row per create (500 of each per transaction for a batch).
// BENCH_PGBENCH_NOTIFY=true adds the service's `pg_notify('webhook_jobs', '')` to each transaction (a diagnostic:
// NOTIFY serialises commits on the server; the issue's limit has no NOTIFY).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup, trackChild } from './cleanup.mjs';
import { JSON_SAMPLES, WEBHOOK_ID, meanEnvelopeBytes, storedInteraction } from './ingest-rows.mjs';
import { PLATFORMS } from './interactions.mjs';
import { startProbe, postgresPids } from './probe.mjs';
import { percentile } from './report.mjs';

const NOTIFY = process.env.BENCH_PGBENCH_NOTIFY === 'true';
// A time-ordered UUID like the service's uuidv7 (ms timestamp first), so that rows append to the indexes.
const UUID7 = `lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 19)`;

/**
 * The script of one transaction writing `rows` creates. The row mix follows `interaction(i)`; strings that
 * hold colons travel as pgbench variables (-D), i.e. as parameters, as the service sends them.
 */
function script(rows) {
  const source = rows === 1 ? '(select :i::int as i) g' : `generate_series(0, ${rows - 1}) as g(i)`;
  const platforms = `array[${PLATFORMS.map((p) => `'${p}'`).join(', ')}]`;
  return `${rows === 1 ? '\\set i random(0, 299)\n' : ''}begin;
insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type, content_metadata,
  classifications, risk_score, direction, source, user_id, policy_decisions)
select :tenant::uuid, (${UUID7})::uuid, date_trunc('milliseconds', now()), (${platforms})[g.i % 5 + 1], md5(random()::text) || md5(random()::text),
  'prompt', :metadata::jsonb, case when g.i % 5 = 0 then :classification::jsonb else '[]'::jsonb end, (g.i % 100) / 100.0,
  case when g.i % 4 = 0 then 'inbound' else 'outbound' end, case when g.i % 3 = 0 then 'proxy' else 'browser_extension' end,
  null, case when g.i % 100 >= 70 then :decision::jsonb else '[]'::jsonb end
from ${source};
with m as (
  insert into webhook_messages (tenant_id, id, event_type, payload, created_at)
  select :tenant::uuid, 'evt_' || ${UUID7}, 'interaction.created', :payload, now() from ${source}
  returning id)
insert into webhook_jobs (tenant_id, webhook_id, event_id, event_type, attempt, run_at, created_at)
select :tenant::uuid, :webhook, m.id, 'interaction.created', 1, now(), now() from m;
${NOTIFY ? "select pg_notify('webhook_jobs', '');\n" : ''}commit;
`;
}

/** An envelope shaped like the service's, padded to the mix's mean size. */
function payload(tenantId) {
  const { envelope } = storedInteraction(1, {
    tenantId, id: crypto.randomUUID(), eventId: `evt_${'0'.repeat(32)}`, timestamp: new Date().toISOString(),
  });
  return envelope.replace('"data":', `"data":${' '.repeat(Math.max(0, meanEnvelopeBytes() - envelope.length))}`);
}

/** Latencies in ms from pgbench's per-transaction logs (`client tx time_us script epoch epoch_us`). */
function loggedLatencies(dir) {
  const latencies = [];
  for (const file of readdirSync(dir).filter((name) => name.startsWith('tx.'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const micros = Number(line.split(' ')[2]);
      if (line && Number.isFinite(micros)) latencies.push(micros / 1000);
    }
  }
  return latencies;
}

function run(args, onChild) {
  return new Promise((resolve, reject) => {
    const child = trackChild(spawn('pgbench', args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    onChild(child);
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.stderr.on('data', (chunk) => { out += chunk; });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`pgbench exited with ${code}: ${out.slice(-600)}`))));
  });
}

/**
 * Runs pgbench for `seconds` on `url` (`clients` connections, 2 threads, prepared statements, no vacuum),
 * each transaction writing `rows` creates for tenant `tenantId`. Returns `{ tps, rowsPerSecond, transactions,
 * failed, p50, p99 (ms), cpu, payloadBytes, notify }`; cpu in % of one core of the database's processes, of pgbench
 * and of the machine.
 */
export async function pgbenchLimit({ url, tenantId, clients, rows, seconds }) {
  const dir = mkdtempSync(join(tmpdir(), 'ugs-bench-pgbench-'));
  const release = onCleanup(() => rmSync(dir, { recursive: true, force: true }), { sync: true });
  try {
    const file = join(dir, 'create.sql');
    writeFileSync(file, script(rows));
    const text = payload(tenantId);
    const vars = {
      tenant: tenantId, webhook: WEBHOOK_ID, payload: text, metadata: JSON_SAMPLES.metadata,
      classification: JSON_SAMPLES.classification, decision: JSON_SAMPLES.logDecision,
    };
    const database = new URL(url).pathname.slice(1);
    let pgbench;
    const probe = startProbe({ groups: { postgres: () => postgresPids(database), pgbench: () => (pgbench ? [pgbench.pid] : []) } });
    let stopped;
    // Stopped on failure too: the probe's timer would otherwise keep the bench process alive.
    const out = await run(['-n', '-M', 'prepared', '-f', file, '-c', String(clients), '-j', String(Math.min(2, clients)),
      '-T', String(seconds), '-l', `--log-prefix=${join(dir, 'tx')}`,
      ...Object.entries(vars).flatMap(([name, value]) => ['-D', `${name}=${value}`]), url], (child) => { pgbench = child; })
      .finally(() => { stopped = probe.stop(); });
    const { cpu } = stopped;
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1]);
    if (!Number.isFinite(tps)) throw new Error(`pgbench: no tps in its output: ${out.slice(-600)}`);
    const latencies = loggedLatencies(dir);
    return {
      tps, rowsPerSecond: tps * rows,
      transactions: Number(/actually processed: (\d+)/.exec(out)?.[1]),
      failed: Number(/failed transactions: (\d+)/.exec(out)?.[1] ?? 0),
      p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), cpu, payloadBytes: Buffer.byteLength(text), notify: NOTIFY,
    };
  } finally {
    await release();
  }
}
