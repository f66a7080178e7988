import { type Kysely, sql } from 'kysely';
import { LEASES } from '../../kernel/lock-ids.js';
import { SERVICE_VERSION, compareVersions, majorOf } from '../../kernel/version.js';
import type { Database } from '../../kernel/tables/database.js';
import { withLease } from './leases.js';
import { applyMigration, appliedMigrations, prepareBookkeeping } from './migration-steps.js';
import { type ServiceMigration, migrations as allMigrations } from './migrations/index.js';
import { TABLE_OWNER, asTableOwner } from './tenant-scope.js';

export class MigrationRefusedError extends Error {}

/** A migrator that dies keeps the others waiting this long at most. */
const MIGRATION_LEASE_MS = 15_000;

export interface MigrateOptions {
  /** Allows the step from the previous major (the `migrate` command). */
  allowMajorUpgrade?: boolean;
  /** The version recorded as the schema's writer (this build's by default). */
  version?: string;
  /** Stop after this migration (tests that fill an earlier schema). */
  to?: string;
  /** The migrations to apply (this build's by default). */
  migrations?: Record<string, ServiceMigration>;
}

/**
 * Brings the schema up to date. Migrations of the same major run at start-up; a database left
 * by the previous major needs the explicit `migrate` command; a jump over a major, or a
 * database written by a newer major, is refused. A database already migrated by a newer release
 * of this major is left as it is: expand-then-contract keeps it valid for this one (a rolling
 * upgrade, or a replica of the previous release started during one).
 *
 * One process migrates at a time (the lease `migrations`, a row: it works through a
 * transaction-pooling PgBouncer, and a holder that dies leaves it to expire). Each migration is
 * a transaction of its own, recorded in it, so that a failure keeps what was done before it and
 * no lock is held from the first migration to the last; those that cannot run in a transaction
 * (`CREATE INDEX CONCURRENTLY`) are written to be run again safely (migration-steps.ts).
 */
export async function migrate(db: Kysely<Database>, options: MigrateOptions = {}): Promise<{ applied: string[] }> {
  return asTableOwner(async () => {
    await prepareBookkeeping(db);
    const result = await withLease(db, LEASES.migrations, () => migrateHoldingLease(db, options), { wait: true, scope: TABLE_OWNER, ttlMs: MIGRATION_LEASE_MS });
    return result ?? { applied: [] };
  });
}

async function migrateHoldingLease(db: Kysely<Database>, options: MigrateOptions): Promise<{ applied: string[] }> {
  const version = options.version ?? SERVICE_VERSION;
  const stored = await storedVersion(db);
  if (stored) checkUpgradePath(stored, version, options.allowMajorUpgrade ?? false);

  const known = options.migrations ?? allMigrations;
  const names = Object.keys(known).sort();
  const done = await appliedMigrations(db);
  const unknown = [...done].filter((name) => !(name in known));
  if (unknown.some((name) => name < names.at(-1)!)) {
    throw new MigrationRefusedError(`The database holds migrations this build does not know among its own (${unknown.join(', ')}).`);
  }

  const last = options.to ?? names.at(-1);
  const applied: string[] = [];
  for (const name of names) {
    if (!done.has(name) && await applyMigration(db, name, known[name]!)) applied.push(name);
    if (name === last) break;
  }
  // A newer release of this major may have migrated already: its version stays recorded.
  if (!stored || compareVersions(version, stored) > 0) {
    await sql`insert into service_meta (key, value) values ('version', ${version})
              on conflict (key) do update set value = excluded.value`.execute(db);
  }
  return { applied };
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
