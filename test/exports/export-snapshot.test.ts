import { randomBytes } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_PAGE_ROWS } from '../../src/modules/exports/keyset-walk.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { listen } from '../helpers/listening.js';
import { STORES } from '../helpers/stores.js';

// Three and a half export pages. Each row carries 12 KiB of incompressible metadata, so the file
// (about 43 MiB) is many times what the sockets and streams between the service and a client that
// stopped reading hold (4-5 MiB on loopback here): a paused export is blocked on back-pressure in
// its first pages, well before its last. The two rows created while it is paused prove it (below).
const ROWS = 3 * EXPORT_PAGE_ROWS + 500;
const PADDING_BYTES = 6 * 1024; // as 12 KiB of hex
const BATCH = 250; // 3 MiB a request, under the 5 MiB body limit
// What VACUUM VERBOSE reports when it removed the one dead row (PostgreSQL 15 and later; up to 14).
const REMOVED = [/tuples: 1 removed, 0 remain, 0 are dead but not yet removable/, /found 1 removable, 0 nonremovable row versions/];
const WAIT_MS = 30_000; // how long the quiet service may take to be seen quiet (a loaded machine)

interface Backend {
  pid: number;
  state: string | null;
  backend_xmin: string | null;
  xmin_after_marker: boolean;
  xact_start: Date | null;
  query: string;
}

/** The lines of a streamed body, read only as they are asked for (the rest stays in the socket). */
async function* linesOf(response: IncomingMessage): AsyncGenerator<string> {
  response.setEncoding('utf8');
  let rest = '';
  for await (const chunk of response as AsyncIterable<string>) {
    rest += chunk;
    const lines = rest.split('\n');
    rest = lines.pop()!;
    yield* lines;
  }
  if (rest !== '') yield rest;
}

function get(url: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers, agent: false }, resolve).on('error', reject);
  });
}

/** Polls until `probe` finds something; fails, with what was last seen, if it never does. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, lastSeen: () => string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; last seen: ${lastSeen()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// A long export must not pin one PostgreSQL snapshot for its whole run: a backend idle in a
// transaction, or holding an old xmin, keeps vacuum from removing any row deleted since, which is
// what slows a database down over hours. The export is paused mid-walk (its client stops reading)
// and the service's backends are inspected from another connection.
describe.runIf(STORES.includes('postgres'))('an export paused mid-walk holds no snapshot [postgres]', () => {
  let h: Harness;
  let t: TestTenant;
  let base: string;
  let client: pg.Client;
  const notices: string[] = [];

  beforeAll(async () => {
    h = await Harness.start('postgres');
    t = await h.tenant('Exporting');
    for (let done = 0; done < ROWS; done += BATCH) {
      const items = Array.from({ length: Math.min(BATCH, ROWS - done) }, (_, i) => interactionBody({
        content_metadata: { n: done + i, padding: randomBytes(PADDING_BYTES).toString('hex') },
      }));
      const response = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().stored).toBe(items.length);
    }
    base = await listen(h.app);
    client = new pg.Client({ connectionString: h.databaseUrl });
    await client.connect();
    client.on('notice', (notice) => notices.push(`${notice.message}\n${notice.detail ?? ''}`));
  }, 180_000);
  afterAll(async () => {
    await client?.end();
    await h?.close();
  });

  /** The service's connections to the test database (not this test's own, nor PostgreSQL's workers). */
  async function serviceBackends(markerXid: string): Promise<Backend[]> {
    const { rows } = await client.query<Backend>(`
      select pid, state, backend_xmin::text as backend_xmin, xact_start, left(query, 200) as query,
        (backend_xmin is null or age(backend_xmin) < age($1::xid)) as xmin_after_marker
      from pg_stat_activity
      where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`, [markerXid]);
    return rows;
  }

  async function createLate(label: string): Promise<string> {
    const response = await h.call('POST', '/api/v1/interactions', {
      token: t.adminToken, body: interactionBody({ content_metadata: { late: label } }),
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id as string;
  }

  it('lets vacuum work while paused, then streams every row exactly once, and rows created meanwhile', async () => {
    // Oldest first: interactions created while the export runs sort after every seeded one, so
    // they are in the file if, and only if, its last page is read after they were committed.
    const response = await get(`${base}/api/v1/interactions/export?format=ndjson&sort=timestamp`, {
      authorization: `Bearer ${t.adminToken}`,
    });
    try {
      expect(response.statusCode).toBe(200);
      const lines = linesOf(response);
      const first = await lines.next();
      expect(first.done).toBe(false);
      // From here on nothing reads the body: the service fills the sockets and stops, mid-export.

      // A write committed after the export started: its transaction id is the marker.
      const lateBeforeCheck = await createLate('before the check');
      const { rows: [marker] } = await client.query<{ xid: string }>('select xmin::text as xid from interactions where id = $1',
        [lateBeforeCheck]);

      // Once no query of the service is running (the export is blocked, the create's follow-ups done),
      // no backend may be left inside a transaction, nor hold a snapshot older than the marker.
      let seen: Backend[] = [];
      const backends = await waitFor('the service to stop running queries', async () => {
        seen = await serviceBackends(marker!.xid);
        return seen.some((backend) => backend.state === 'active') ? undefined : seen;
      }, () => JSON.stringify(seen));
      expect(backends.length, 'the service has connections to inspect').toBeGreaterThan(0);
      const describeAll = JSON.stringify(backends, null, 1);
      expect(backends.filter((backend) => backend.state?.startsWith('idle in transaction')), describeAll).toEqual([]);
      expect(backends.filter((backend) => !backend.xmin_after_marker), `marker xid ${marker!.xid}: ${describeAll}`).toEqual([]);

      // And so vacuum removes a row deleted after the export started: the horizon is not held back.
      await client.query('create table export_snapshot_probe (n int)');
      await client.query('insert into export_snapshot_probe values (1)');
      await client.query('delete from export_snapshot_probe');
      // (Polled: an autovacuum ANALYZE of this database may hold the horizon for a moment.)
      await waitFor('vacuum to remove the deleted row', async () => {
        notices.length = 0;
        await client.query('vacuum (verbose) export_snapshot_probe');
        return notices.some((notice) => REMOVED.some((removed) => removed.test(notice))) || undefined;
      }, () => notices.join(' | '));

      // Created after the check: if it is in the file, the export was still paused mid-walk above.
      const lateAfterCheck = await createLate('after the check');

      const ids: string[] = [];
      const seeded: number[] = [];
      const take = (line: string) => {
        const record = JSON.parse(line) as { id: string; content_metadata: { n?: number } };
        ids.push(record.id);
        if (record.content_metadata.n !== undefined) seeded.push(record.content_metadata.n);
      };
      take(first.value!);
      for await (const line of { [Symbol.asyncIterator]: () => lines }) take(line);
      expect(new Set(ids).size, 'no interaction twice').toBe(ids.length);
      expect(seeded.sort((a, b) => a - b), 'every seeded interaction').toEqual(Array.from({ length: ROWS }, (_, n) => n));
      // Missing here while the checks above passed: the export was not paused mid-walk (the sockets
      // took all of it), and those checks proved nothing; both missing: one snapshot for the walk.
      expect(ids.slice(ROWS), 'the interactions created while the export was paused, last')
        .toEqual([lateBeforeCheck, lateAfterCheck]);
    } finally {
      response.destroy();
    }
  }, 240_000);
});
