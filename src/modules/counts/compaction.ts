import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../kernel/tables/database.js';
import type { Deps } from '../../platform/deps.js';
import { Poller } from '../../platform/poller.js';
import { logFailure } from '../../platform/store/store-outages.js';
import { COUNTS_COMPACTION_KEYS, LOCK_IDS } from '../../kernel/lock-ids.js';
import { ALERT_COUNTS, type CountFamily, INTERACTION_COUNTS } from './current.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { ALL_TENANTS, TABLE_OWNER } from '../../platform/store/tenant-scope.js';

/** Deltas folded per transaction (more when one transaction wrote more): bounds its locks and its memory. */
export const COMPACTION_BATCH = 20_000;
/** A bucket's generation is rewritten once its appended rows are at least this many, and as many as its merged ones. */
const MERGE_AFTER = 64;
/** The embedded store has no autovacuum: vacuum the count tables after this many folded rows. */
const EMBEDDED_VACUUM_EVERY = 50_000;

type Tx = Transaction<Database>;

/**
 * Folds up to about `limit` interaction deltas into interaction_counts (each into its hour, day
 * and month, and into their roll-ups per classification type: docs/interaction-counts.md).
 * One compaction at a time (the rebuild takes the same lock); another replica's turn is skipped.
 * Returns how many deltas it folded.
 */
export async function compactCounts(db: Kysely<Database>, limit = COMPACTION_BATCH): Promise<number> {
  return fold(db, INTERACTION_COUNTS, COUNTS_COMPACTION_KEYS.interactions, limit, (moved) => sql`
    with detailed as (
      select m.tenant_id, m.classification_type, g.granularity, date_trunc(g.granularity, m.bucket, 'UTC') as bucket,
        m.platform_id, m.source, m.direction, m.risk_bucket, m.count
      from ${moved} m cross join ${GRANULARITIES}
    )
    -- Each bucket's detail rows, and its roll-up per classification type (dimensions '' and -1).
    select tenant_id, granularity, bucket, classification_type, coalesce(platform_id, '') as platform_id,
      coalesce(source, '') as source, coalesce(direction, '') as direction, coalesce(risk_bucket, -1) as risk_bucket,
      sum(count) as count
    from detailed
    group by grouping sets ((tenant_id, classification_type, granularity, bucket, platform_id, source, direction, risk_bucket),
      (tenant_id, classification_type, granularity, bucket))`, INTERACTION_KEY);
}

/** As compactCounts, for the alerts' deltas into alert_counts. */
export async function compactAlertCounts(db: Kysely<Database>, limit = COMPACTION_BATCH): Promise<number> {
  return fold(db, ALERT_COUNTS, COUNTS_COMPACTION_KEYS.alerts, limit, (moved) => sql`
    select m.tenant_id, g.granularity, date_trunc(g.granularity, m.bucket, 'UTC') as bucket,
      m.status, m.severity, m.policy_id, sum(m.count) as count
    from ${moved} m cross join ${GRANULARITIES}
    group by 1, 2, 3, 4, 5, 6`, ALERT_KEY);
}

const GRANULARITIES = sql`(values ('hour'), ('day'), ('month')) as g(granularity)`;
/** The dimensions of each family's rows, after (tenant_id, granularity, bucket). */
const INTERACTION_KEY = ['classification_type', 'platform_id', 'source', 'direction', 'risk_bucket'];
const ALERT_KEY = ['status', 'severity', 'policy_id'];

/**
 * One fold, in one transaction under the family's lock:
 * 1. The deltas to fold are those of transactions below the oldest one of this database still in
 *    progress (all finished, so none can commit later below the new mark), from the last mark
 *    on, cut at about `limit`.
 * 2. One statement deletes them, sums them per bucket and key, appends the sums to each bucket's
 *    current generation (a new one for a bucket without rows) and records the new mark: a reader
 *    sees each delta either in the deltas past the mark or in the counts, never both or neither.
 * 3. The buckets it touched whose appended rows outnumber their merged ones (count_heads keeps both
 *    sizes, so no bucket is counted) are rewritten as one row per key (zeros dropped) in a new
 *    generation, and their old rows deleted.
 */
async function fold(
  db: Kysely<Database>, family: CountFamily, lockKey: number, limit: number,
  aggregate: (moved: RawBuilder<unknown>) => RawBuilder<unknown>, key: string[],
): Promise<number> {
  return underLock(db, lockKey, async (tx) => {
    const deltas = sql.table(family.deltas);
    // The cut walks the position index in order: a bitmap scan would read and sort a whole backlog.
    await sql`set local enable_bitmapscan = off`.execute(tx);
    const { rows: [range] } = await sql<{ since: string; cut: string }>`
      with last as (
        select coalesce((select position from count_folds where family = ${family.family} order by position desc limit 1), '0'::xid8) as since
      ), snapshot as (select pg_current_snapshot() as s
      ), mark as (
        select since, greatest(since, least(pg_snapshot_xmax(s), coalesce((${runningHere}), pg_snapshot_xmax(s)))) as horizon
        from last, snapshot
      ), batch_end as (
        select coalesce((select d.position from ${deltas} d where d.position >= mark.since and d.position < mark.horizon
          order by d.position offset ${limit} limit 1), mark.horizon) as position from mark
      )
      -- Never cut inside one transaction's deltas, and always move forward.
      select mark.since::text, coalesce((select d.position from ${deltas} d where d.position > mark.since
        and d.position >= batch_end.position and d.position < mark.horizon order by d.position limit 1), mark.horizon)::text as cut
      from mark, batch_end`.execute(tx);
    const { since, cut } = range!;
    if (since === cut) return 0;
    const counts = sql.table(family.counts);
    const columns = (alias?: string) => refs(['tenant_id', 'granularity', 'bucket', ...key, 'count'], alias);
    const { rows: [moved] } = await sql<{ moved: string | number; due: Head[] }>`
      with moved as (
        delete from ${deltas} where position >= ${since}::xid8 and position < ${cut}::xid8 returning *
      ), sums as (${aggregate(sql`moved`)}),
      fresh as (select nextval('count_generations') as generation),
      heads as (
        select b.tenant_id, b.granularity, b.bucket, coalesce(h.generation, (select generation from fresh)) as generation,
          coalesce(h.merged, 0) as merged, coalesce(h.appended, 0) + b.rows as appended
        from (select tenant_id, granularity, bucket, count(*) filter (where count <> 0) as rows from sums group by 1, 2, 3) b
        left join count_heads h on h.family = ${family.family} and h.tenant_id = b.tenant_id
          and h.granularity = b.granularity and h.bucket = b.bucket
      ), appended as (
        insert into ${counts} (${columns()}, generation, appended)
        select ${columns('s')}, h.generation, true
        from sums s join heads h using (tenant_id, granularity, bucket) where s.count <> 0
      ), sized as (
        insert into count_heads (family, tenant_id, granularity, bucket, generation, merged, appended)
        select ${family.family}, tenant_id, granularity, bucket, generation, merged, appended from heads
        on conflict (family, tenant_id, granularity, bucket) do update set appended = excluded.appended
      ), marked as (
        insert into count_folds (family, position) values (${family.family}, ${cut}::xid8)
      ), pruned as (
        delete from count_folds where family = ${family.family} and position < ${since}::xid8
      )
      select (select count(*) from moved) as moved,
        (select coalesce(json_agg(h), '[]') from heads h where h.appended >= greatest(${MERGE_AFTER}, h.merged)) as due`.execute(tx);
    await mergeGenerations(tx, family, key, moved!.due);
    return Number(moved!.moved);
  });
}

/**
 * The oldest transaction of this database in progress in the snapshot (and every prepared one):
 * only those can still commit deltas. Transactions of the cluster's other databases, which hold
 * back the snapshot's own xmin, cannot write here and must not stall the folds. Read from
 * pg_locks (each transaction holds a lock on its id), which every role sees whole; the next
 * statement's snapshot sees every transaction below the result as finished.
 */
const runningHere = sql`select min(x) from pg_snapshot_xip(s) x where xid(x) in (
  select l.transactionid from pg_locks l left join pg_stat_activity a on a.pid = l.pid
  where l.locktype = 'transactionid' and (l.pid is null or a.datname = current_database()))`;

/** The columns, as a list of references (qualified by `alias` when given). */
const refs = (columns: string[], alias?: string) =>
  sql.join(columns.map((column) => sql.ref(alias ? `${alias}.${column}` : column)));

/** A bucket's current generation and its rows, as count_heads keeps them. */
interface Head {
  tenant_id: string;
  granularity: string;
  bucket: string;
  generation: string | number;
}

/** Rewrites each bucket's generation as one row per key (zeros dropped) in a new generation, and its old rows deleted. */
async function mergeGenerations(tx: Tx, family: CountFamily, key: string[], due: Head[]): Promise<void> {
  if (!due.length) return;
  const counts = sql.table(family.counts);
  const keyColumns = refs(['tenant_id', 'granularity', 'bucket', ...key]);
  await sql`
    with due as (
      select * from jsonb_to_recordset(${JSON.stringify(due)}::jsonb)
        as t(tenant_id uuid, granularity text, bucket timestamptz, generation bigint)
    ), old as (
      delete from ${counts} c using due d where c.tenant_id = d.tenant_id and c.granularity = d.granularity
        and c.bucket = d.bucket and c.generation = d.generation
      returning c.*
    ), fresh as (select nextval('count_generations') as generation
    ), merged as (
      insert into ${counts} (${keyColumns}, count, generation, appended)
      select ${keyColumns}, sum(count), (select generation from fresh), false
      from old group by ${keyColumns} having sum(count) <> 0
      returning tenant_id, granularity, bucket
    ), sizes as (select tenant_id, granularity, bucket, count(*) as rows from merged group by 1, 2, 3)
    update count_heads h set generation = (select generation from fresh), merged = coalesce(s.rows, 0), appended = 0
    from due d left join sizes s using (tenant_id, granularity, bucket)
    where h.family = ${family.family} and h.tenant_id = d.tenant_id and h.granularity = d.granularity and h.bucket = d.bucket`
    .execute(tx);
}

async function underLock(db: Kysely<Database>, key: number, move: (tx: Tx) => Promise<number>): Promise<number> {
  // A fold moves every tenant's deltas into the same tenant's counts.
  return inFixedScope(db, ALL_TENANTS).transaction().execute(async (tx) => {
    const { rows: [lock] } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${LOCK_IDS.countsCompaction}, ${key}) as locked`.execute(tx);
    return lock?.locked ? move(tx) : 0;
  });
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
      await sql`vacuum interaction_count_deltas, interaction_counts, alert_count_deltas, alert_counts, count_folds, count_heads`
        .execute(inFixedScope(this.deps.store.db, TABLE_OWNER));
    }
    return interactions >= COMPACTION_BATCH || alerts >= COMPACTION_BATCH;
  }
}
