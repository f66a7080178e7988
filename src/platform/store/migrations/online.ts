import { type Kysely, type RawBuilder, sql } from 'kysely';

/**
 * Builds an index without blocking the table's writers (`CREATE INDEX CONCURRENTLY`), for a
 * migration marked `transactional = false`. A build that failed or was interrupted leaves an
 * invalid index behind: it is dropped and built again, so the step can always run again.
 */
export async function createIndexConcurrently(db: Kysely<any>, name: string, definition: RawBuilder<unknown>): Promise<void> {
  const { rows } = await sql<{ valid: boolean }>`select i.indisvalid as valid
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname = ${name} and c.relnamespace = current_schema()::regnamespace`.execute(db);
  if (rows[0]?.valid === true) return;
  if (rows[0]) await sql`drop index concurrently if exists ${sql.id(name)}`.execute(db);
  await sql`create index concurrently if not exists ${sql.id(name)} ${definition}`.execute(db);
}
