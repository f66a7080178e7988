// A failover under a steady stream of creates: part of `npm run bench` (BENCH_ONLY=failover), or alone with
// `node bench/failover.mjs` after `npm run build`. A primary and a synchronous streaming standby of the bench's own
// (pg-cluster.mjs); the service's DATABASE_URL names both with target_session_attrs=read-write. BENCH_FAILOVER_WRITERS
// (default 8) loops create interactions one after the other; after 3 s the primary crashes (pg_ctl stop -m
// immediate), BENCH_FAILOVER_PROMOTE_AFTER_MS later (default 1000) the standby is promoted, and the creates go on
// until 3 s after the first one acknowledged by the new primary.
//   - back after the promotion: from `pg_ctl promote` returning to the first 201 after it; target <= 5000 ms.
//   - answers other than 201 or 503 (target 0) and acknowledged creates missing on the new primary (target 0).
//   - limit: what `pg_ctl promote` itself took.
import { pathToFileURL } from 'node:url';
import { startCluster } from './lib/pg-cluster.mjs';
import { figure } from './lib/report.mjs';
import { ADMIN, apiKey, interaction, login, nowMs, post, sleep, startService } from './lib/service.mjs';
import { withClient } from './lib/stores.mjs';

const WRITERS = Number(process.env.BENCH_FAILOVER_WRITERS ?? 8);
const PROMOTE_AFTER_MS = Number(process.env.BENCH_FAILOVER_PROMOTE_AFTER_MS ?? 1000);
const TARGET_MS = 5000;
const DATABASE = 'ugs_failover';

export async function runFailover() {
  // PostgreSQL's own: nothing to measure on the embedded store.
  if (process.env.BENCH_STORES === 'pglite') return;
  const primary = await startCluster();
  const standby = await startCluster({ standbyOf: primary });
  let service;
  try {
    await primary.replicateSynchronously();
    await withClient(primary.url, (client) => client.query(`create database ${DATABASE}`));
    const hosts = `127.0.0.1:${primary.port},127.0.0.1:${standby.port}`;
    service = await startService({
      DATABASE_URL: `postgres://postgres@${hosts}/${DATABASE}?target_session_attrs=read-write`, DATABASE_POOL_TIMEOUT_MS: '1000',
    });
    const key = await apiKey(service.base, await login(service.base, ADMIN));

    const answers = [];
    let writing = true;
    let sent = 0;
    const writers = Promise.all(Array.from({ length: WRITERS }, async () => {
      while (writing) {
        const answer = await post(service.base, '/api/v1/interactions', key, interaction(sent++)).catch((error) => ({ status: String(error), at: nowMs() }));
        answers.push({ status: answer.status, at: answer.at, id: answer.status === 201 ? JSON.parse(answer.body).id : undefined });
      }
    }));
    await sleep(3000);
    const crashedAt = nowMs();
    primary.crash();
    await sleep(PROMOTE_AFTER_MS);
    const promoting = nowMs();
    standby.promote();
    const promotedAt = nowMs();
    while (!answers.some((answer) => answer.status === 201 && answer.at > promotedAt) && nowMs() - promotedAt < 60_000) await sleep(10);
    await sleep(3000);
    writing = false;
    await writers;

    const acknowledged = answers.filter((answer) => answer.status === 201);
    const back = acknowledged.find((answer) => answer.at > promotedAt);
    const lastBefore = acknowledged.filter((answer) => answer.at < crashedAt).at(-1);
    const { rows: [found] } = await withClient(standby.url.replace(/\/postgres$/, `/${DATABASE}`), (client) =>
      client.query('select count(*)::int as n from interactions where id = any($1::uuid[])', [acknowledged.map((answer) => answer.id)]));
    const scenario = `failover, ${WRITERS} writers`;
    const limit = promotedAt - promoting;
    console.log(`\nFailover: the primary crashes, its synchronous standby is promoted ${PROMOTE_AFTER_MS} ms later (PostgreSQL ${primary.version})`);
    console.table([
      figure({ scenario, name: 'back after the promotion (ms)', value: back ? back.at - promotedAt : NaN, limit, limitIs: 'pg_ctl promote (ms)',
        target: { op: '<=', value: TARGET_MS }, reached: Boolean(back) }),
      figure({ scenario, name: 'no 201 for (ms)', value: back && lastBefore ? back.at - lastBefore.at : NaN }),
      figure({ scenario, name: 'creates acknowledged', value: acknowledged.length }),
      figure({ scenario, name: '503 answers', value: answers.filter((answer) => answer.status === 503).length }),
      figure({ scenario, name: 'answers other than 201, 503', value: answers.filter((answer) => answer.status !== 201 && answer.status !== 503).length,
        target: { op: '==', value: 0 } }),
      figure({ scenario, name: 'acknowledged creates lost', value: acknowledged.length - found.n, target: { op: '==', value: 0 } }),
    ]);
  } finally {
    await service?.stop();
    await standby.stop();
    await primary.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runFailover();
