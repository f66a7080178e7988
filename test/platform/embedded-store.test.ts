import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/platform/store/store.js';
import { tempDir } from '../helpers/process.js';
import { ownerDb } from '../helpers/stores.js';

const STORE_JS = join(import.meta.dirname, '../../dist/platform/store/store.js');
const SCOPED_JS = join(import.meta.dirname, '../../dist/platform/store/scoped-connections.js');

async function setting(store: Store, name: string): Promise<string> {
  const result = await sql.raw<Record<string, string>>(`show ${name}`).execute(ownerDb(store));
  return result.rows[0]![name]!;
}

async function count(store: Store): Promise<number> {
  const result = await sql<{ n: number }>`select count(*)::int as n from t`.execute(ownerDb(store));
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

  it('runs with durable commits and a 16 MB buffer pool by default', async () => {
    const store = await openStore({ dataDir: folder() });
    try {
      expect(await setting(store, 'fsync')).toBe('on');
      expect(await setting(store, 'wal_sync_method')).toBe('fsync');
      expect(await setting(store, 'synchronous_commit')).toBe('on');
      expect(await setting(store, 'shared_buffers')).toBe('16MB');
    } finally {
      await store.close();
    }
  });

  it('takes its durability and buffer pool from the options', async () => {
    const store = await openStore({ dataDir: folder(), embedded: { durableCommits: false, sharedBuffersMb: 64 } });
    try {
      expect(await setting(store, 'fsync')).toBe('off');
      expect(await setting(store, 'shared_buffers')).toBe('64MB');
    } finally {
      await store.close();
    }
  });

  it('applies the buffer pool in memory too (tests)', async () => {
    const store = await openStore({});
    try {
      expect(await setting(store, 'shared_buffers')).toBe('16MB');
    } finally {
      await store.close();
    }
  });

  it.each([true, false])('keeps committed data across a close and a reopen (durable commits: %s)', async (durableCommits) => {
    const dataDir = folder();
    const first = await openStore({ dataDir, embedded: { durableCommits } });
    await sql`create table t (n int primary key)`.execute(ownerDb(first));
    for (let n = 1; n <= 50; n += 1) {
      await ownerDb(first).transaction().execute(async (tx) => {
        await sql`insert into t values (${n})`.execute(tx);
      });
    }
    await first.close();

    const second = await openStore({ dataDir, embedded: { durableCommits } });
    try {
      expect(await count(second)).toBe(50);
      expect(await setting(second, 'fsync')).toBe(durableCommits ? 'on' : 'off');
    } finally {
      await second.close();
    }
  });

  it.each([true, false])('loses no acknowledged commit when the process is killed (durable commits: %s)', async (durableCommits) => {
    const dataDir = folder();
    // A process that commits one row per transaction and reports each commit, until killed.
    const script = `
      const { openStore } = await import(${JSON.stringify(STORE_JS)});
      const { inFixedScope } = await import(${JSON.stringify(SCOPED_JS)});
      const { sql } = await import('kysely');
      const store = await openStore({ dataDir: ${JSON.stringify(dataDir)}, embedded: { durableCommits: ${durableCommits} } });
      const db = inFixedScope(store.db, { kind: 'owner' });
      await sql\`create table t (n int primary key)\`.execute(db);
      for (let n = 1; ; n += 1) {
        await sql\`insert into t values (\${n})\`.execute(db);
        process.stdout.write(n + '\\n');
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acknowledged = 0;
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        acknowledged = Number(chunk.toString().trim().split('\n').at(-1));
        if (acknowledged >= 300) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', (code) => reject(new Error(`the writer exited early (${code})`)));
    });
    await new Promise((resolve) => child.on('close', resolve));

    const store = await openStore({ dataDir, embedded: { durableCommits } });
    try {
      expect(await count(store)).toBeGreaterThanOrEqual(acknowledged);
    } finally {
      await store.close();
    }
  });
});
