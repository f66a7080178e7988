import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/kernel/tables/database.js';
import { SharedWindows } from '../../src/modules/auth/rate-limit/shared-windows.js';
import { migrate } from '../../src/platform/store/migrate.js';
import { clearOfWindowEnd } from '../helpers/rate-limit-windows.js';
import { createPostgresDatabase } from '../helpers/stores.js';

const WINDOW_MS = 60_000;

// The rate limit's counts in PostgreSQL; the embedded store counts in its process instead.
describe.skipIf(!process.env.TEST_DATABASE_URL)('rate limit windows in PostgreSQL [postgres]', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let db: Kysely<Database>;
  const statements: string[] = [];
  beforeAll(async () => {
    database = await createPostgresDatabase();
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 5 }) }),
      log: (event) => {
        if (event.query.sql.includes('rate_limit_windows')) statements.push(event.query.sql);
      },
    });
    await migrate(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const count = (windows: SharedWindows, key: string) => new Promise<{ current: number; ttl: number }>((resolve, reject) => {
    windows.incr(key, (error, result) => (error ? reject(error) : resolve(result!)), WINDOW_MS);
  });

  it('adds the requests of a key that arrive together in few statements, each with its own exact count', async () => {
    const windows = new SharedWindows(db);
    await clearOfWindowEnd(10_000);
    statements.length = 0;
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => count(windows, i % 3 === 0 ? 'user:b' : 'user:a')));

    const currents = (key: string) => results.filter((_, i) => (i % 3 === 0 ? 'user:b' : 'user:a') === key)
      .map((r) => r.current).sort((x, y) => x - y);
    expect(currents('user:a')).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(currents('user:b')).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Per key: the first request's statement, then one for all that arrived meanwhile.
    expect(statements.length).toBe(4);
    for (const { ttl } of results) {
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
    }
    const rows = await db.selectFrom('rate_limit_windows').select(['key', 'hits']).orderBy('key').execute();
    expect(rows).toEqual([{ key: 'user:a', hits: 40 }, { key: 'user:b', hits: 20 }]);
  });

  it('shares the count between two instances, as between replicas', async () => {
    const [one, two] = [new SharedWindows(db), new SharedWindows(db)];
    await clearOfWindowEnd(10_000);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => count(i % 2 ? one : two, 'api_key:shared')));
    expect(results.map((r) => r.current).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('deletes the rows of ended windows as it counts', async () => {
    await db.insertInto('rate_limit_windows').values([
      { key: 'user:old', window_start: sql<Date>`date_bin('1 minute', now(), timestamptz 'epoch') - interval '5 minutes'` as never, hits: 7 },
      { key: 'user:older', window_start: sql<Date>`date_bin('1 minute', now(), timestamptz 'epoch') - interval '1 minute'` as never, hits: 3 },
    ]).execute();
    await clearOfWindowEnd(10_000);
    await count(new SharedWindows(db), 'user:new');
    const keys = (await db.selectFrom('rate_limit_windows').select('key').execute()).map((r) => r.key);
    expect(keys).not.toContain('user:old');
    expect(keys).not.toContain('user:older');
    expect(keys).toContain('user:new');
  });
});
