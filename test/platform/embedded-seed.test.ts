import { createReadStream, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readArchive } from '../../src/platform/store/folder-archive.js';
import { migrate } from '../../src/platform/store/migrate.js';
import { openStore, type Store } from '../../src/platform/store/store.js';
import { asTableOwner } from '../../src/platform/store/tenant-scope.js';
import { tempDir } from '../helpers/process.js';

/** What tells two stores apart beyond their data: PostgreSQL's settings (but where the folder is) and the schema. */
async function shape(store: Store) {
  return asTableOwner(async () => ({
    settings: (await sql<{ name: string; setting: string }>`
      select name, setting from pg_settings
      where name not in ('data_directory', 'config_file', 'hba_file', 'ident_file')
        and name not like 'plpgsql.%' -- listed once a session has run a PL/pgSQL function, as migrations do
      order by name`.execute(store.db)).rows,
    columns: (await sql<{ table_name: string; column_name: string; data_type: string }>`
      select table_name, column_name, data_type from information_schema.columns
      where table_schema = 'public' order by table_name, column_name`.execute(store.db)).rows,
    migrations: (await sql<{ name: string }>`select name from schema_migrations order by name`.execute(store.db)).rows,
    roles: (await sql<{ rolname: string }>`select rolname from pg_roles where rolname = 'ugs_app'`.execute(store.db)).rows,
  }));
}

describe('a new embedded store folder, from the build\'s store seed', () => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  it('is the store initdb and the migrations make, with durable commits on, and no key; without the seed, initdb runs', async () => {
    const seeded = join(tempDir(), 'data');
    const fromSeed = await openStore({ dataDir: seeded, seed: inject('pgliteSnapshot') });
    stores.push(fromSeed);
    expect((await migrate(fromSeed.db)).applied).toEqual([]); // the seed is migrated already

    const initdb = join(tempDir(), 'data');
    const withoutSeed = await openStore({ dataDir: initdb, seed: join(tempDir(), 'no-seed.tar.gz') });
    stores.push(withoutSeed);
    expect((await migrate(withoutSeed.db)).applied.length).toBeGreaterThan(10);
    expect(existsSync(join(initdb, 'PG_VERSION'))).toBe(true);

    expect(await shape(fromSeed)).toEqual(await shape(withoutSeed));
    // Durable commits (the default) run as on any folder: fsync on, through the fsync that syncs.
    const durability = await asTableOwner(() => sql<{ fsync: string; method: string }>`
      select current_setting('fsync') as fsync, current_setting('wal_sync_method') as method`.execute(fromSeed.db));
    expect(durability.rows[0]).toEqual({ fsync: 'on', method: 'fsync' });
    expect(statSync(join(seeded, 'PG_VERSION')).mode & 0o777).toBe(0o600);
    // Every folder makes its own master key: the seed carries none, nor anything of the process that built it.
    expect(existsSync(join(seeded, 'data-encryption.key'))).toBe(false);
    const names: string[] = [];
    for await (const entry of readArchive(createReadStream(inject('pgliteSnapshot')))) names.push(entry.name);
    expect(names.at(-1)).toBe('PG_VERSION'); // written last: a folder seeded halfway is seeded again
    expect(names.filter((name) => /key|sock|postmaster|backup_label/.test(name))).toEqual([]);
  }, 300_000);
});
