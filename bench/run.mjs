// Load figures for the service, run as a real process on loopback: `npm run bench`.
// Ten parts, each also runnable alone after `npm run build`:
//   ingest    bench/ingest.mjs    creates and batches, each beside pgbench / a raw PGlite loop of the same rows
//   queries   bench/queries.mjs   seed, then single creates, lists, search and stats
//   delivery  bench/delivery.mjs  webhook deliveries
//   governance bench/governance.mjs exports of every row and the policy dry-run, at size
//   console   bench/console.mjs   the console in Chromium: JavaScript of the first load, the interactions page at size
//   fuzz      bench/fuzz.mjs      100,000 requests generated from the OpenAPI document per store: 5xx, undocumented, leaks
//   sso       bench/sso.mjs       sign-ins through an in-process OpenID provider: the service's own time per sign-in
//   failover  bench/failover.mjs  a primary crashes under creates and its standby is promoted: time until the service is back
//   pgbouncer bench/pgbouncer.mjs webhook latency through a transaction-pooling PgBouncer, with and without DATABASE_LISTEN_URL, beside direct
//   upgrades  bench/upgrades.mjs  the upgrade test from every earlier release, and each migration's time at 1,000,000 rows
// BENCH_ONLY=ingest|queries|delivery|governance|console|fuzz|sso|failover|pgbouncer|upgrades runs one part; BENCH_DATABASE_URL (or TEST_DATABASE_URL) adds PostgreSQL;
// BENCH_STORES=pglite|postgres keeps one store; BENCH_SECONDS sets each measured run's length.
import { runConsole } from './console.mjs';
import { runDelivery } from './delivery.mjs';
import { runFailover } from './failover.mjs';
import { runFuzz } from './fuzz.mjs';
import { runGovernance } from './governance.mjs';
import { runIngest } from './ingest.mjs';
import { runPgBouncer } from './pgbouncer.mjs';
import { runQueries } from './queries.mjs';
import { runSso } from './sso.mjs';
import { runUpgrades } from './upgrades.mjs';

const PARTS = { ingest: runIngest, queries: runQueries, delivery: runDelivery, governance: runGovernance, console: runConsole, fuzz: runFuzz, sso: runSso, failover: runFailover, pgbouncer: runPgBouncer, upgrades: runUpgrades };
const ONLY = process.env.BENCH_ONLY;

if (ONLY && !(ONLY in PARTS)) throw new Error(`BENCH_ONLY must be one of ${Object.keys(PARTS).join(', ')}`);
for (const [name, run] of Object.entries(PARTS)) {
  if (!ONLY || ONLY === name) await run();
}
