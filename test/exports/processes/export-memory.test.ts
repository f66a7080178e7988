import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, ServiceProcess } from '../../helpers/process.js';
import { createPostgresDatabase } from '../../helpers/stores.js';

const ADMIN = { email: 'admin@export.test', password: 'Export-Password-42' };
const ROWS = 500_000;
const MiB = 1024 * 1024;

/** The resident memory of a process, from /proc. */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((row) => row.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D/g, '')) * 1024;
}

// A streamed export holds one page at a time, whatever the number of rows: exporting half a million
// interactions (over 100 MiB of CSV) must not grow the service's memory by more than a few pages' worth.
describe.skipIf(!process.env.TEST_DATABASE_URL)('an export of 500,000 interactions [postgres]', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('streams every row in constant memory', async () => {
    const database = await createPostgresDatabase();
    cleanups.push(() => database.drop());
    const port = await freePort();
    const service = ServiceProcess.start(['serve'], {
      DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      // A heap smaller than the file, and far smaller than its rows as objects: an export that kept
      // its rows would run out of memory. (The idle service itself holds about 55 MiB.)
      NODE_OPTIONS: '--max-old-space-size=96',
    });
    cleanups.push(() => service.stop('SIGKILL'));
    const base = `http://127.0.0.1:${port}`;
    await service.waitUntilReady(`${base}/readyz`, 60_000);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanups.push(() => client.end());
    await client.query(`insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type,
        content_metadata, classifications, risk_score, direction, source, user_id, policy_decisions)
      select t.id, gen_random_uuid(), date_trunc('milliseconds', now()) - n * interval '1 second', 'chatgpt',
        encode(sha256(n::text::bytea), 'hex'), 'prompt', jsonb_build_object('n', n),
        case when n % 3 = 0 then '[{"type":"EMAIL","value":"jane@example.com","score":0.9,"start":0,"end":16}]'::jsonb else '[]'::jsonb end,
        (n % 10) / 10.0, 'outbound', 'browser_extension', null, '[]'::jsonb
      from tenants t, generate_series(1, ${ROWS}) as n`);
    // What autovacuum would do after such a load (it may be off on a test server): without
    // statistics the planner sorts the whole remaining list for every page.
    await client.query('analyze interactions');

    const { token } = await (await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN),
    })).json() as { token: string };
    const pid = service.child.pid!;
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);

    const response = await fetch(`${base}/api/v1/interactions/export?format=csv`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body!) {
      bytes += chunk.byteLength;
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines += 1;
    }
    clearInterval(sampler);
    console.log(`export of ${ROWS} rows: ${Math.round(bytes / MiB)} MiB streamed; service RSS ${Math.round(before / MiB)} -> peak ${Math.round(peak / MiB)} MiB`);

    expect(lines).toBe(ROWS + 1); // the header and one line per interaction (no field holds a newline)
    expect(bytes).toBeGreaterThan(100 * MiB);
    // The file is over 100 MiB; the service grew by a small, fixed amount.
    expect(peak - before, `RSS ${Math.round(before / MiB)} -> peak ${Math.round(peak / MiB)} MiB for ${Math.round(bytes / MiB)} MiB exported`)
      .toBeLessThan(96 * MiB);
  }, 600_000);
});
