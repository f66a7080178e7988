import { sql } from 'kysely';
import { openStore } from '../dist/db/store.js';
import { countQuery } from '../dist/modules/interactions/interactions.totals.js';
const store = await openStore({ databaseUrl: `postgres://postgres@127.0.0.1:5432/${process.argv[2]}` });
const T = '01900000-0000-7000-8000-000000000001';
const day = { start: new Date('2026-05-09T10:17:23.456Z'), end: new Date('2026-05-10T10:17:23.455Z') };
const cases = {
  none: {}, platform: { platform_id: 'claude' }, risk08: { risk_score_min: 0.8 }, risk085: { risk_score_min: 0.85 },
  card: { classification_type: 'CREDIT_CARD' }, day: { range: day }, srcdir: { source: 'proxy', direction: 'inbound' },
  dayPlatform: { range: day, platform_id: 'claude' }, dayCard: { range: day, classification_type: 'CREDIT_CARD' },
};
for (const [name, c] of Object.entries(cases)) {
  const q = countQuery(store.db, T, { range: {}, ...c });
  const times = [];
  let total;
  for (let i = 0; i < 20; i++) { const t0 = performance.now(); total = (await q.executeTakeFirst()).total; times.push(performance.now() - t0); }
  times.sort((a, b) => a - b);
  const plain = name === 'none' || name === 'day' ? (await sql`select count(*) as n from interactions where tenant_id = ${T} ${c.range ? sql`and timestamp between ${day.start} and ${day.end}` : sql``}`.execute(store.db)).rows[0].n : '';
  console.log(name.padEnd(12), String(total).padStart(9), String(plain).padStart(9), 'p50', times[10].toFixed(1), 'max', times[19].toFixed(1));
}
await store.close();
