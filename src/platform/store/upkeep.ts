import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../kernel/tables/database.js';
import { LEASES } from '../../kernel/lock-ids.js';
import { withLease } from './leases.js';
import { Poller } from '../poller.js';
import type { Store } from './store.js';
import { logFailure } from './store-outages.js';

/** How often the tables' state is read (ms). */
const CHECK_EVERY_MS = 30_000;
/**
 * A table vacuumed (by anyone) this recently is left alone, as autovacuum's naptime does: while a
 * snapshot held open makes vacuum a no-op, it is not run in a loop.
 */
const VACUUM_AGAIN_AFTER = '1 minute';
/** Acts only past this many times autovacuum's own thresholds: with autovacuum on and keeping up, never. */
const BEHIND = 2;

/** A table's own autovacuum setting (alias `t`), else the server's. */
const setting = (name: string) => sql`coalesce(
  (select option_value::float8 from pg_options_to_table(t.reloptions) where option_name = ${name}),
  current_setting(${name})::float8)`;

interface TableState {
  table: string;
  analyze: boolean;
  vacuum: boolean;
}

/**
 * What autovacuum does for the service's tables, done here when it does not (switched off, as
 * on some managed or CI databases, or behind): a table whose statistics are missing or stale is
 * analyzed (a table never analyzed gets plans made for an empty table), and one whose dead or
 * newly inserted rows are past twice autovacuum's thresholds (its own per-table settings
 * included) is vacuumed, at autovacuum's cost-based pace, at most once per VACUUM_AGAIN_AFTER.
 * Read from pg_stat_user_tables, as autovacuum reads it (docs/operations.md, "Vacuum and statistics").
 */
const postgresStates = sql<TableState>`
  with tables as (
    select s.relname::text as table, greatest(c.reltuples, 0) as tuples, s.n_mod_since_analyze, s.n_dead_tup,
      s.n_ins_since_vacuum, greatest(s.last_vacuum, s.last_autovacuum) as vacuumed, c.reloptions
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema()
  ), limits as (
    select t.*,
      ${setting('autovacuum_analyze_threshold')}
        + ${setting('autovacuum_analyze_scale_factor')} * tuples
        as analyze_after,
      ${setting('autovacuum_vacuum_threshold')}
        + ${setting('autovacuum_vacuum_scale_factor')} * tuples
        as dead_after,
      ${setting('autovacuum_vacuum_insert_threshold')}
        + ${setting('autovacuum_vacuum_insert_scale_factor')} * tuples
        as inserted_after
    from tables t
  ), due as (
    select "table", n_mod_since_analyze > ${BEHIND} * analyze_after as analyze,
      (n_dead_tup > ${BEHIND} * dead_after or n_ins_since_vacuum > ${BEHIND} * inserted_after)
        and (vacuumed is null or vacuumed < now() - ${VACUUM_AGAIN_AFTER}::interval) as vacuum
    from limits
  )
  select * from due where "analyze" or vacuum
  order by 1`;

/**
 * The embedded store keeps no table statistics (no autovacuum, no statistics collector), so a
 * table is analyzed when it holds twice the pages its last ANALYZE saw, plus 100 (about 800 kB).
 * Its count and queue tables are vacuumed by their own workers.
 */
const embeddedStates = sql<TableState>`
  select c.relname::text as table, true as analyze, false as vacuum
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = current_schema() and c.relkind = 'r'
    and pg_relation_size(c.oid) / current_setting('block_size')::int > ${BEHIND} * greatest(c.relpages, 0) + 100
  order by 1`;

/**
 * Keeps the service's tables analyzed and vacuumed when nothing else does (one replica at a
 * time: a lease). Logs each table it acts on: with autovacuum on and keeping up, it never acts.
 */
export class StoreUpkeepWorker {
  private readonly poller: Poller;

  constructor(private readonly store: Store, private readonly logger: Logger, private readonly intervalMs = CHECK_EVERY_MS) {
    this.poller = new Poller(() => this.upkeep(), intervalMs,
      (error) => logFailure(store, logger, 'warn', error, 'table upkeep failed; will retry'));
  }

  /**
   * The first check comes one interval after start, as autovacuum's first look comes a naptime
   * after the server's: a restarted service spends its first seconds on what waited for it (a
   * backlog of deliveries, the requests of a rollout), not on ANALYZE and VACUUM beside them.
   */
  async start(): Promise<void> {
    this.poller.start(this.intervalMs);
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  private async upkeep(): Promise<boolean> {
    await withLease(this.store.db, LEASES.storeUpkeep, () => this.store.withSession(async (connection) => {
      // On PostgreSQL, at autovacuum's own pace, so requests do not queue on the disk (a session
      // setting: VACUUM runs outside any transaction, on the session's own connection). The
      // embedded store's single connection serves the requests too: its ANALYZE is better over at once.
      const paced = this.store.kind === 'postgres';
      if (paced) await sql`set vacuum_cost_delay = '2ms'`.execute(connection);
      try {
        await this.run(connection);
      } finally {
        if (paced) await sql`reset vacuum_cost_delay`.execute(connection);
      }
    }));
    return false;
  }

  private async run(connection: Kysely<Database>): Promise<void> {
    const embedded = this.store.kind === 'pglite';
    const { rows } = await (embedded ? embeddedStates : postgresStates).execute(connection);
    for (const { table, analyze, vacuum } of rows) {
      const command = vacuum ? sql`vacuum (analyze ${sql.raw(analyze ? 'true' : 'false')})` : sql`analyze`;
      const startedAt = performance.now();
      await sql`${command} ${sql.table(table)}`.execute(connection);
      this.logger.info({ table, analyze, vacuum, ms: Math.round(performance.now() - startedAt) },
        embedded ? 'table statistics refreshed' : 'table upkeep done where autovacuum had not');
    }
  }
}
