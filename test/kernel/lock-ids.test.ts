import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COUNTS_COMPACTION_KEYS, LOCK_IDS } from '../../src/kernel/lock-ids.js';

const MIGRATIONS = join(import.meta.dirname, '../../src/platform/store/migrations');

/** Every `pg_advisory…lock…(class, key)` a migration's SQL takes, as written there. */
function migrationLocks(): { file: string; lockClass: number; key: string }[] {
  return readdirSync(MIGRATIONS).flatMap((file) =>
    [...readFileSync(join(MIGRATIONS, file), 'utf8').matchAll(/pg_(?:try_)?advisory_\w*lock\w*\((\d+),\s*([^)]+\)?)\)/g)]
      .map((match) => ({ file, lockClass: Number(match[1]), key: match[2]!.trim() })));
}

describe('advisory lock ids', () => {
  it('are distinct', () => {
    const ids = Object.values(LOCK_IDS);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('taken by the migrations (which never import code) are the named ones, with the same keys', () => {
    const locks = migrationLocks();
    expect(locks.length).toBeGreaterThanOrEqual(3);
    for (const { file, lockClass, key } of locks) {
      expect(Object.values(LOCK_IDS), `${file} takes lock class ${lockClass}`).toContain(lockClass);
      if (lockClass === LOCK_IDS.countsCompaction) {
        expect(Object.values(COUNTS_COMPACTION_KEYS).map(String), `${file}'s compaction key`).toContain(key);
      }
    }
  });
});
