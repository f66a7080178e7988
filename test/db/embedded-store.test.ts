import { rmSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/store.js';
import { tempDir } from '../helpers/process.js';

async function setting(store: Store, name: string): Promise<string> {
  const result = await sql.raw<Record<string, string>>(`show ${name}`).execute(store.db);
  return result.rows[0]![name]!;
}

async function count(store: Store): Promise<number> {
  const result = await sql<{ n: number }>`select count(*)::int as n from t`.execute(store.db);
  return result.rows[0]!.n;
}

describe('the embedded store', () => {
  const dirs: string[] = [];
  const folder = () => {
    const dir = tempDir('ugs-embedded-');
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('runs with a 32 MB buffer pool by default', async () => {
    const store = await openStore({ dataDir: folder() });
    try {
      expect(await setting(store, 'shared_buffers')).toBe('32MB');
    } finally {
      await store.close();
    }
  });

  it('takes its buffer pool from the options', async () => {
    const store = await openStore({ dataDir: folder(), embedded: { sharedBuffersMb: 16 } });
    try {
      expect(await setting(store, 'shared_buffers')).toBe('16MB');
    } finally {
      await store.close();
    }
  });

  it('applies the buffer pool in memory too (tests)', async () => {
    const store = await openStore({});
    try {
      expect(await setting(store, 'shared_buffers')).toBe('32MB');
    } finally {
      await store.close();
    }
  });

  it('keeps committed data across a close and a reopen', async () => {
    const dataDir = folder();
    const first = await openStore({ dataDir });
    await sql`create table t (n int primary key)`.execute(first.db);
    for (let n = 1; n <= 50; n += 1) {
      await first.db.transaction().execute(async (tx) => {
        await sql`insert into t values (${n})`.execute(tx);
      });
    }
    await first.close();

    const second = await openStore({ dataDir });
    try {
      expect(await count(second)).toBe(50);
    } finally {
      await second.close();
    }
  });
});
