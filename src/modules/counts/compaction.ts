import { type Kysely, sql, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../kernel/tables/database.js';
import type { Deps } from '../../platform/deps.js';
import { Poller } from '../../platform/poller.js';
import { logFailure } from '../../platform/store/store-outages.js';
import { COUNTS_COMPACTION_KEYS, LOCK_IDS } from '../../kernel/lock-ids.js';

/** Deltas moved per transaction: bounds its locks and its memory. */
export const COMPACTION_BATCH = 20_000;
/** The embedded store has no autovacuum: vacuum both tables after this many moved rows. */
const EMBEDDED_VACUUM_EVERY = 50_000;

type Tx = Transaction<Database>;

/**
 * Moves up to `limit` interaction deltas into interaction_counts (each into its hour, day and
 * month, and into their roll-ups per classification type: docs/interaction-counts.md) in one
 * statement, so a reader sees them in one table or the other, never both or neither. One
 * compaction at a time (the rebuild takes the same lock); another replica's turn is skipped.
 * Returns how many deltas it moved.
 */
export async function compactCounts(db: Kysely<Database>, limit = COMPACTION_BATCH): Promise<number> {
  return underLock(db, COUNTS_COMPACTION_KEYS.interactions, async (tx) => {
    const { rows } = await sql<MoveResult>`
      with moved as (${takeDeltas('interaction_count_deltas', limit)}),
      detailed as (
        select m.tenant_id, m.classification_type, g.granularity, date_trunc(g.granularity, m.bucket, 'UTC') as bucket,
          m.platform_id, m.source, m.direction, m.risk_bucket, m.count
        from moved m cross join ${GRANULARITIES}
      ), rolled as (
        -- Each bucket's detail rows, and its roll-up per classification type (dimensions '' and -1).
        select tenant_id, classification_type, granularity, bucket, coalesce(platform_id, ''), coalesce(source, ''),
          coalesce(direction, ''), coalesce(risk_bucket, -1), sum(count) as count
        from detailed
        group by grouping sets ((tenant_id, classification_type, granularity, bucket, platform_id, source, direction, risk_bucket),
          (tenant_id, classification_type, granularity, bucket))
      ), upserted as (
        insert into interaction_counts as c
          (tenant_id, classification_type, granularity, bucket, platform_id, source, direction, risk_bucket, count)
        select * from rolled where count <> 0
        on conflict on constraint interaction_counts_pk do update set count = c.count + excluded.count
        returning c.*
      )
      ${moveResult}`.execute(tx);
    await dropEmptied(tx, 'interaction_counts',
      ['tenant_id', 'classification_type', 'granularity', 'bucket', 'platform_id', 'source', 'direction', 'risk_bucket'], rows[0]);
    return Number(rows[0]?.moved ?? 0);
  });
}

/** As compactCounts, for the open alerts' deltas into alert_counts. */
export async function compactAlertCounts(db: Kysely<Database>, limit = COMPACTION_BATCH): Promise<number> {
  return underLock(db, COUNTS_COMPACTION_KEYS.alerts, async (tx) => {
    const { rows } = await sql<MoveResult>`
      with moved as (${takeDeltas('alert_count_deltas', limit)}),
      upserted as (
        insert into alert_counts as c (tenant_id, granularity, bucket, severity, count)
        select m.tenant_id, g.granularity, date_trunc(g.granularity, m.bucket, 'UTC'), m.severity, sum(m.count)
        from moved m cross join ${GRANULARITIES}
        group by 1, 2, 3, 4 having sum(m.count) <> 0
        on conflict on constraint alert_counts_pk do update set count = c.count + excluded.count
        returning c.*
      )
      ${moveResult}`.execute(tx);
    await dropEmptied(tx, 'alert_counts', ['tenant_id', 'granularity', 'bucket', 'severity'], rows[0]);
    return Number(rows[0]?.moved ?? 0);
  });
}

const GRANULARITIES = sql`(values ('hour'), ('day'), ('month')) as g(granularity)`;

/** Deletes and returns up to `limit` deltas, in no order (the table has no index). */
const takeDeltas = (table: string, limit: number) => sql`
  delete from ${sql.table(table)} where ctid = any(array(select ctid from ${sql.table(table)} limit ${limit})) returning *`;

/** How many deltas moved, and the count rows the upsert left at 0. */
interface MoveResult {
  moved: string | number;
  emptied: unknown;
}
const moveResult = sql`select (select count(*) from moved) as moved,
  (select json_agg(u) from upserted u where u.count = 0) as emptied`;

async function underLock(db: Kysely<Database>, key: number, move: (tx: Tx) => Promise<number>): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const { rows: [lock] } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${LOCK_IDS.countsCompaction}, ${key}) as locked`.execute(tx);
    return lock?.locked ? move(tx) : 0;
  });
}

/** Deletes were compacted: drop the count rows they brought to 0 (the upsert could not delete them itself). */
async function dropEmptied(tx: Tx, table: string, key: string[], result: MoveResult | undefined): Promise<void> {
  if (!result?.emptied) return;
  const columns = (alias: string) => sql.join(key.map((column) => sql.ref(`${alias}.${column}`)));
  await sql`delete from ${sql.table(table)} c using json_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(result.emptied)}) e
    where (${columns('c')}) = (${columns('e')}) and c.count = 0`.execute(tx);
}

/** Compacts both tables' deltas every `intervalMs` (default 1 s), at once again while a batch came back full. */
export class CountsCompactionWorker {
  private readonly poller: Poller;
  private movedSinceVacuum = 0;

  constructor(private readonly deps: Deps, logger: Logger, intervalMs = 1000) {
    this.poller = new Poller(() => this.compact(), intervalMs,
      (error) => logFailure(deps.store, logger, 'warn', error, 'interaction counts compaction failed; will retry'));
  }

  async start(): Promise<void> {
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  private async compact(): Promise<boolean> {
    const interactions = await compactCounts(this.deps.store.db);
    const alerts = await compactAlertCounts(this.deps.store.db);
    this.movedSinceVacuum += interactions + alerts;
    if (this.deps.store.kind === 'pglite' && this.movedSinceVacuum >= EMBEDDED_VACUUM_EVERY) {
      this.movedSinceVacuum = 0;
      await sql`vacuum interaction_count_deltas, interaction_counts, alert_count_deltas, alert_counts`.execute(this.deps.store.db);
    }
    return interactions === COMPACTION_BATCH || alerts === COMPACTION_BATCH;
  }
}
