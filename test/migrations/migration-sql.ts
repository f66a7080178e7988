import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { ServiceMigration } from '../../src/platform/store/migrations/index.js';

const SQUAWK = join(import.meta.dirname, '../../node_modules/.bin/squawk');

/** Squawk's rules that say nothing about locks (style), or that the migration runner keeps for every migration (timeouts). */
const NOT_ABOUT_LOCKS = [
  'prefer-bigint-over-int', 'prefer-bigint-over-smallint', 'prefer-identity',
  // migration-steps.ts sets lock_timeout on every transactional migration.
  'require-lock-timeout', 'require-statement-timeout',
];

export interface Finding {
  migration: string;
  rule: string;
  statement: string;
}

/**
 * The statements a migration sends, in order, read without a database (every query answers no
 * rows); the transactions a migration marked `transactional = false` opens itself appear as
 * `begin` and `commit`, for Squawk to judge their statements as one transaction's.
 */
export async function statementsOf(migration: ServiceMigration): Promise<string[]> {
  const statements: string[] = [];
  class TransactionsShown extends DummyDriver {
    override async beginTransaction(): Promise<void> { statements.push('begin'); }
    override async commitTransaction(): Promise<void> { statements.push('commit'); }
    override async rollbackTransaction(): Promise<void> { statements.push('rollback'); }
  }
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new TransactionsShown(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => { if (event.level === 'query') statements.push(event.query.sql); },
  });
  await migration.up(db);
  return statements;
}

/**
 * What in these migrations would hold a lock that writers wait on for long: Squawk's rules
 * (an index built without CONCURRENTLY on an existing table, a constraint validated at once, a
 * column's type changed, a table or column dropped under the previous release...) and two of
 * our own, which Squawk does not see: a column added with a volatile default (the table is
 * rewritten) and a backfill that reads or writes a whole existing table in the migration's
 * transaction.
 */
export async function lockFindings(migrations: Record<string, ServiceMigration>): Promise<Finding[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ugs-migration-sql-'));
  try {
    const statements = new Map<string, string[]>();
    for (const [name, migration] of Object.entries(migrations)) {
      const sqls = await statementsOf(migration);
      statements.set(name, sqls);
      const folder = join(dir, migration.transactional === false ? 'outside' : 'inside');
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `${name}.sql`), sqls.map((text) => `${text};\n`).join('\n'));
    }
    const findings = [
      ...squawk(join(dir, 'inside'), true, statements),
      ...squawk(join(dir, 'outside'), false, statements),
      ...[...statements].flatMap(([migration, sqls]) => ownFindings(migration, sqls)),
    ];
    return findings.sort((a, b) => a.migration.localeCompare(b.migration) || a.rule.localeCompare(b.rule)
      || a.statement.localeCompare(b.statement));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function squawk(folder: string, inTransaction: boolean, statements: Map<string, string[]>): Finding[] {
  if (!existsSync(folder)) return [];
  let output: string;
  try {
    output = execFileSync(SQUAWK, [
      '--pg-version=15', '--reporter=json', `--exclude=${NOT_ABOUT_LOCKS.join(',')}`,
      ...(inTransaction ? ['--assume-in-transaction'] : []), `${folder}/*.sql`,
    ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // Squawk exits non-zero when it found something; its report is still on stdout.
    output = (error as { stdout?: string }).stdout ?? '';
    if (!output.trim().startsWith('[')) throw error;
  }
  if (!output.trim()) return [];
  const reported = JSON.parse(output) as Array<{ file: string; line: number; rule_name: string }>;
  return reported.map((entry) => {
    const migration = entry.file.split('/').at(-1)!.replace(/\.sql$/, '');
    return { migration, rule: entry.rule_name, statement: statementAtLine(statements.get(migration) ?? [], entry.line) };
  });
}

/** The statement of the file written above that holds this 0-based line. */
function statementAtLine(sqls: string[], line: number): string {
  let first = 0;
  for (const text of sqls) {
    const lines = `${text};\n`.split('\n').length;
    if (line < first + lines) return firstLine(text);
    first += lines;
  }
  return '';
}

const firstLine = (text: string) => text.trim().split('\n')[0]!.trim();

/** A default PostgreSQL must compute row by row, rewriting the table (a stable or constant one is stored once). */
const VOLATILE_DEFAULT = /add\s+column[^,;]*\bdefault\s+[^,;]*\b(random|gen_random_uuid|uuid_generate_v\w+|clock_timestamp|timeofday|nextval|pg_current_xact_id|txid_current)\s*\(/i;

function ownFindings(migration: string, sqls: string[]): Finding[] {
  const created = new Set(sqls.flatMap((text) => [...text.matchAll(/create\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?(\w+)/gi)]
    .map((match) => match[1]!.toLowerCase())));
  const existing = (table: string) => !created.has(table.toLowerCase());
  const findings: Finding[] = [];
  for (const text of sqls) {
    const altered = /^\s*alter\s+table\s+(?:only\s+)?(\w+)/i.exec(text)?.[1];
    if (altered && existing(altered) && VOLATILE_DEFAULT.test(text)) {
      findings.push({ migration, rule: 'volatile-default-rewrites-table', statement: firstLine(text) });
    }
    const backfilled = /^\s*(?:update\s+(\w+)|delete\s+from\s+(\w+)|insert\s+into\s+\w+[^;]*?\bselect\b[^;]*?\bfrom\s+(\w+))/is.exec(text);
    const table = backfilled?.slice(1).find(Boolean);
    if (table && existing(table) && !/\blimit\b/i.test(text)) {
      findings.push({ migration, rule: 'backfill-in-migration-transaction', statement: firstLine(text) });
    }
    if (/^\s*select\s+\w+_rebuild\s*\(/i.test(text)) {
      findings.push({ migration, rule: 'backfill-in-migration-transaction', statement: firstLine(text) });
    }
  }
  return findings;
}
