// The embedded store's limit, run as its own process by bench/lib/pglite-loop.mjs:
//   node bench/lib/pglite-loop-child.mjs <dataDir> <seconds>
// Opens the store as the service does (openStore and migrate of dist/), then writes what a create writes,
// one transaction at a time, for <seconds>; prints `{ tps, transactions, p50, p99, rssAfterOpenMiB, cpuPercent }` as JSON
// (cpuPercent: the loop's own CPU while measured, in % of one core).
import { sql } from 'kysely';
import { migrate } from '../../dist/platform/store/migrate.js';
import { openStore } from '../../dist/platform/store/store.js';
import { prefixedId, uuidv7 } from '../../dist/kernel/ids.js';
import { WEBHOOK_ID, storedInteraction } from './ingest-rows.mjs';
import { percentile } from './report.mjs';

const WARM_UP = 200;
const [dataDir, seconds] = process.argv.slice(2);
const store = await openStore({ dataDir });
await migrate(store.db);
const tenantId = uuidv7();
await sql`insert into tenants (id, name, created_at) values (${tenantId}, 'raw loop', now())`.execute(store.db);
const rssAfterOpenMiB = process.memoryUsage().rss / 2 ** 20;

/** One create's rows in one transaction: the interaction, then its message and job in one statement. */
async function create(i) {
  const now = new Date();
  const eventId = prefixedId('evt', now.getTime());
  const { row: r, envelope } = storedInteraction(i, { tenantId, id: uuidv7(now.getTime()), eventId, timestamp: now.toISOString() });
  await store.db.transaction().execute(async (tx) => {
    await sql`insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type, content_metadata,
        classifications, risk_score, direction, source, user_id, policy_decisions)
      values (${tenantId}, ${r.id}, ${r.timestamp}, ${r.platform_id}, ${r.content_hash}, ${r.interaction_type},
        ${JSON.stringify(r.content_metadata)}, ${JSON.stringify(r.classifications)}, ${r.risk_score}, ${r.direction},
        ${r.source}, ${r.user_id}, ${JSON.stringify(r.policy_decisions)})`.execute(tx);
    await sql`with m as (
        insert into webhook_messages (tenant_id, id, event_type, payload, created_at)
        values (${tenantId}, ${eventId}, 'interaction.created', ${envelope}, ${now}) returning id)
      insert into webhook_jobs (tenant_id, webhook_id, event_id, event_type, attempt, run_at, created_at)
      select ${tenantId}, ${WEBHOOK_ID}, m.id, 'interaction.created', 1, ${now}, ${now} from m`.execute(tx);
  });
}

let i = 0;
for (; i < WARM_UP; i += 1) await create(i);
const latencies = [];
const cpuBefore = process.cpuUsage();
const start = performance.now();
const deadline = start + Number(seconds) * 1000;
while (performance.now() < deadline) {
  const begun = performance.now();
  await create(i);
  i += 1;
  latencies.push(performance.now() - begun);
}
const elapsed = (performance.now() - start) / 1000;
const { user, system } = process.cpuUsage(cpuBefore);
await store.close();
process.stdout.write(`${JSON.stringify({
  tps: latencies.length / elapsed, transactions: latencies.length,
  p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), rssAfterOpenMiB,
  cpuPercent: ((user + system) / 1e6 / elapsed) * 100,
})}\n`);
