import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/types.js';
import type { Deps } from '../../deps.js';
import { Poller } from '../../lib/poller.js';

/** Deltas moved per transaction: bounds its locks and its memory. */
export const COMPACTION_BATCH = 20_000;
/** The embedded store has no autovacuum: vacuum both tables after this many moved rows. */
const EMBEDDED_VACUUM_EVERY = 50_000;

/**
 * Moves up to `limit` deltas into interaction_counts (each into its hour, day and month, and into
 * their roll-ups per classification type: docs/interaction-counts.md) in one
 * statement, so a reader sees them in one table or the other, never both or neither. One
 * compaction at a time (the rebuild takes the same lock); another replica's turn is skipped.
 * Returns how many deltas it moved.
 */
export async function compactCounts(db: Kysely<Database>, limit = COMPACTION_BATCH): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const { rows: [lock] } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(7769, 0) as locked`.execute(tx);
    if (!lock?.locked) return 0;
    const { rows } = await sql<{ moved: string | number; emptied: unknown }>`
      with moved as (
        delete from interaction_count_deltas
        where ctid = any(array(select ctid from interaction_count_deltas limit ${limit}))
        returning *
      ), detailed as (
        select m.tenant_id, m.classification_type, g.granularity, date_trunc(g.granularity, m.bucket, 'UTC') as bucket,
          m.platform_id, m.source, m.direction, m.risk_bucket, m.count
        from moved m cross join (values ('hour'), ('day'), ('month')) as g(granularity)
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
      select (select count(*) from moved) as moved,
        (select json_agg(u) from upserted u where u.count = 0) as emptied`.execute(tx);
    const emptied = rows[0]?.emptied;
    // Deletes made some counts 0: drop those rows (the upsert could not delete them itself).
    if (emptied) {
      await sql`delete from interaction_counts c using json_populate_recordset(null::interaction_counts, ${JSON.stringify(emptied)}) e
        where (c.tenant_id, c.classification_type, c.granularity, c.bucket, c.platform_id, c.source, c.direction, c.risk_bucket)
          = (e.tenant_id, e.classification_type, e.granularity, e.bucket, e.platform_id, e.source, e.direction, e.risk_bucket)
          and c.count = 0`.execute(tx);
    }
    return Number(rows[0]?.moved ?? 0);
  });
}

/** Compacts the deltas every `intervalMs` (default 1 s), at once again while a batch came back full. */
export class CountsCompactionWorker {
  private readonly poller: Poller;
  private movedSinceVacuum = 0;

  constructor(private readonly deps: Deps, logger: Logger, intervalMs = 1000) {
    this.poller = new Poller(() => this.compact(), intervalMs,
      (error) => logger.warn({ err: error }, 'interaction counts compaction failed; will retry'));
  }

  async start(): Promise<void> {
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  private async compact(): Promise<boolean> {
    const moved = await compactCounts(this.deps.store.db);
    this.movedSinceVacuum += moved;
    if (this.deps.store.kind === 'pglite' && this.movedSinceVacuum >= EMBEDDED_VACUUM_EVERY) {
      this.movedSinceVacuum = 0;
      await sql`vacuum interaction_count_deltas, interaction_counts`.execute(this.deps.store.db);
    }
    return moved === COMPACTION_BATCH;
  }
}
