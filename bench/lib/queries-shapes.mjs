// The list shapes of the queries bench and what their answers are checked against: count(*) of the same filters
// in SQL, and the stats' plain numbers (shared by bench/queries.mjs and the live measures, bench/lib/queries-live.mjs).
import { createHash } from 'node:crypto';

const DAY_MS = 86_400_000;

export const md5 = (text) => createHash('md5').update(text).digest('hex');
export const asUuid = (hex) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The shapes: the query string and the same filters in SQL, for count(*). */
export function shapes(seed) {
  const dayStart = new Date(seed.start.getTime() + 90 * DAY_MS + ((10 * 60 + 17) * 60 + 23) * 1000 + 456);
  const dayEnd = new Date(dayStart.getTime() + DAY_MS - 1);
  const user = asUuid(md5('user42'));
  return {
    day: { start: dayStart, end: dayEnd },
    list: [
      ['no filter', '', 'true'],
      ['platform_id', 'platform_id=claude', `platform_id = 'claude'`],
      ['risk_score_min=0.8', 'risk_score_min=0.8', 'risk_score >= 0.8'],
      ['classification_type=CREDIT_CARD', 'classification_type=CREDIT_CARD',
        `exists (select 1 from jsonb_array_elements(classifications) c where c->>'type' = 'CREDIT_CARD')`],
      ['one day, not aligned', `start_date=${dayStart.toISOString()}&end_date=${dayEnd.toISOString()}`,
        `timestamp >= '${dayStart.toISOString()}' and timestamp <= '${dayEnd.toISOString()}'`],
      ['user_id', `user_id=${user}`, `user_id = '${user}'`],
      ['source + direction', 'source=proxy&direction=inbound', `source = 'proxy' and direction = 'inbound'`],
      ['sort=-risk_score + platform_id', 'sort=-risk_score&platform_id=claude', `platform_id = 'claude'`],
    ],
  };
}

/** count(*) of each shape and the stats' plain numbers, with the store opened directly (before the service starts). */
export async function plainCounts(env, tenantId, { list, day }) {
  const { sql } = await import('kysely');
  const { openOwnerStore } = await import('./owner-store.mjs');
  const store = await openOwnerStore(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL, poolSize: 2 } : { dataDir: env.DATA_DIR });
  try {
    const timings = {};
    const count = async (where, name) => {
      const started = performance.now();
      const n = Number((await sql.raw(`select count(*) as n from interactions
        where tenant_id = '${tenantId}' and ${where}`).execute(store.db)).rows[0].n);
      if (name) timings[name] = performance.now() - started;
      return n;
    };
    const bySource = async (where) => Object.fromEntries((await sql.raw(`select source, count(*) as n from interactions
      where tenant_id = '${tenantId}' and ${where} group by source`).execute(store.db)).rows.map((r) => [r.source, Number(r.n)]));
    const openAlerts = async (where) => Object.fromEntries((await sql.raw(`select severity, count(*) as n from alerts
      where tenant_id = '${tenantId}' and status = 'open' and ${where.replaceAll('timestamp', 'created_at')} group by severity`)
      .execute(store.db)).rows.map((r) => [r.severity, Number(r.n)]));
    const dayWhere = `timestamp >= '${day.start.toISOString()}' and timestamp <= '${day.end.toISOString()}'`;
    const statsOf = async (where) => ({ total: await count(where), bySource: await bySource(where), openAlerts: await openAlerts(where) });
    return {
      // One after the other, so each time is its own: what a total cost when it was a count(*).
      list: await list.reduce(async (done, [name, , where]) => ({ ...(await done), [name]: await count(where, name) }), {}),
      timings,
      stats: { all: await statsOf('true'), day: await statsOf(dayWhere) },
    };
  } finally {
    await store.close();
  }
}

export function statsMatch(body, expected) {
  const { total, by_source: bySource } = body.interactions;
  const sources = ['browser_extension', 'proxy', 'endpoint_agent', 'api'];
  const severities = ['low', 'medium', 'high', 'critical'];
  return total === expected.total && sources.every((s) => bySource[s] === (expected.bySource[s] ?? 0))
    && severities.every((s) => body.alerts.open_by_severity[s] === (expected.openAlerts[s] ?? 0));
}
