import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Deps } from '../../platform/deps.js';
import { logFailure } from '../../platform/store/store-outages.js';
import { deleteInBatches } from '../../kernel/batches.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { ALL_TENANTS, TABLE_OWNER } from '../../platform/store/tenant-scope.js';

export interface RetentionOptions {
  /** How often the purge runs (ms). */
  intervalMs?: number | undefined;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows deleted per statement, and the pause between two, so no purge holds long locks. */
const BATCH = 1000;
const PAUSE_MS = 20;

export interface PurgeResult {
  deliveries: number;
  messages: number;
}

/**
 * Keeps the delivery history for `WEBHOOK_HISTORY_RETENTION_DAYS`: attempts older than that are
 * deleted, then the stored envelopes of events older than that which neither a job nor a
 * remaining attempt refers to (redelivery reads them), in small batches. Replicas may all run
 * it: each batch skips the rows another is deleting, or a redelivery is reading.
 */
export async function purgeDeliveryHistory(deps: Deps): Promise<PurgeResult> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.config.webhooks.historyRetentionDays * DAY_MS);
  // Old rows of every tenant, by age alone.
  const db = inFixedScope(deps.store.db, ALL_TENANTS);
  const deliveries = await deleteInBatches(async () => {
    const result = await sql`delete from webhook_deliveries where (tenant_id, id) in (
      select tenant_id, id from webhook_deliveries where attempted_at < ${cutoff} limit ${BATCH} for update skip locked)`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  }, BATCH, PAUSE_MS);
  const messages = await deleteInBatches(async () => {
    const result = await sql`delete from webhook_messages where (tenant_id, id) in (
      select m.tenant_id, m.id from webhook_messages m where m.created_at < ${cutoff}
        -- one hashed pass over the (small) job table, whatever the number of messages
        and (m.tenant_id, m.id) not in (select j.tenant_id, j.event_id from webhook_jobs j)
        and not exists (select 1 from webhook_deliveries d where d.tenant_id = m.tenant_id and d.event_id = m.id)
      limit ${BATCH} for update skip locked)`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  }, BATCH, PAUSE_MS);
  // The embedded store has no autovacuum: reclaim the queue's dead rows here.
  if (deps.store.kind === 'pglite') await sql`vacuum webhook_jobs, webhook_messages, webhook_deliveries`.execute(inFixedScope(db, TABLE_OWNER));
  return { deliveries, messages };
}

/** Runs the purge at start and then every `intervalMs` (default 10 minutes). */
export class RetentionWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: Deps, private readonly logger: Logger, private readonly options: RetentionOptions = {}) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = purgeDeliveryHistory(this.deps)
        .then((purged) => {
          if (purged.deliveries + purged.messages > 0) this.logger.info(purged, 'delivery history purged');
        }, (error: unknown) => logFailure(this.deps.store, this.logger, 'warn', error, 'delivery history purge failed; will retry'))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule(this.options.intervalMs ?? 10 * 60 * 1000);
        });
    }, delayMs);
    this.timer.unref();
  }
}
