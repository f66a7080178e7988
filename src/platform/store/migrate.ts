import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { LOCK_IDS } from '../../kernel/lock-ids.js';
import { SERVICE_VERSION, majorOf } from '../../kernel/version.js';
import { migrations } from './migrations/index.js';
import { asTableOwner } from './tenant-scope.js';
import type { Database } from '../../kernel/tables/database.js';

export class MigrationRefusedError extends Error {}

/**
 * Brings the schema up to date. Migrations of the same major run at start-up; a database left
 * by the previous major needs the explicit `migrate` command; a jump over a major, or a
 * database written by a newer major, is refused.
 *
 * All of it is one transaction, which holds the migration lock (replicas starting together
 * migrate one after the other): it works through a transaction-pooling PgBouncer, and a failure
 * leaves neither a half-migrated schema nor a lock behind.
 */
export async function migrate(
  db: Kysely<Database>,
  options: { allowMajorUpgrade?: boolean; version?: string } = {},
): Promise<{ applied: string[] }> {
  return asTableOwner(() => db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_IDS.migrations})`.execute(trx);
    return migrateAsOwner(trx, options);
  }));
}

async function migrateAsOwner(
  db: Kysely<Database>, options: { allowMajorUpgrade?: boolean; version?: string },
): Promise<{ applied: string[] }> {
  const version = options.version ?? SERVICE_VERSION;
  const stored = await storedVersion(db);
  if (stored) checkUpgradePath(stored, version, options.allowMajorUpgrade ?? false);

  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  await sql`insert into service_meta (key, value) values ('version', ${version})
            on conflict (key) do update set value = excluded.value`.execute(db);
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

function checkUpgradePath(stored: string, target: string, allowMajorUpgrade: boolean): void {
  const from = majorOf(stored);
  const to = majorOf(target);
  if (from > to) {
    throw new MigrationRefusedError(
      `The database was written by ${stored}, newer than this ${target}; run ${stored} or later.`,
    );
  }
  if (to - from > 1) {
    throw new MigrationRefusedError(
      `The database is at ${stored}; ${target} cannot skip a major version. Upgrade through v${from + 1}.x first.`,
    );
  }
  if (to - from === 1 && !allowMajorUpgrade) {
    throw new MigrationRefusedError(
      `The database is at ${stored}, an earlier major than ${target}. Read the release notes, then run the 'migrate' command.`,
    );
  }
}

async function storedVersion(db: Kysely<Database>): Promise<string | undefined> {
  const exists = await sql<{ found: string | null }>`select to_regclass('service_meta')::text as found`.execute(db);
  if (!exists.rows[0]?.found) return undefined;
  const row = await db.selectFrom('service_meta').select('value').where('key', '=', 'version').executeTakeFirst();
  return row?.value;
}
