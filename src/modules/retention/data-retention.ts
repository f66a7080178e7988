import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Deps } from '../../platform/deps.js';
import { logFailure } from '../../platform/store/store-outages.js';
import type { Database } from '../../kernel/tables/database.js';
import { systemContext } from '../../kernel/context.js';
import { deleteInBatches } from '../../kernel/batches.js';
import { Poller } from '../../platform/poller.js';
import { deleteInteractionsBatch } from '../interactions/interactions.purge.js';
import { writeAudit } from '../audit/audit.writer.js';
import { LEASES } from '../../kernel/lock-ids.js';
import { withLease } from '../../platform/store/leases.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { ALL_TENANTS, TABLE_OWNER, inTenants } from '../../platform/store/tenant-scope.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Interactions (or audit entries) deleted per statement, and the pause between two, so ingest never waits long. */
export const RETENTION_BATCH = 1000;
const PAUSE_MS = 20;

export interface TenantRetentionRun {
  tenantId: string;
  interactionsDeleted: number;
  alertsDeleted: number;
  auditEntriesDeleted: number;
}

/**
 * Deletes, for every tenant with a retention, its interactions (and their alerts) older than
 * `retention_days` and its audit entries older than `audit_retention_days`, oldest first, in
 * batches of one short statement each. The counts' delete triggers keep totals and stats exact.
 * A run that deleted anything leaves one audit entry with its counts.
 */
export async function applyDataRetention(deps: Deps): Promise<TenantRetentionRun[]> {
  const tenants = await inFixedScope(deps.store.db, ALL_TENANTS).selectFrom('tenants')
    .select(['id', 'retention_days', 'audit_retention_days'])
    .where((eb) => eb.or([eb('retention_days', 'is not', null), eb('audit_retention_days', 'is not', null)]))
    .execute();
  const runs: TenantRetentionRun[] = [];
  for (const tenant of tenants) {
    const run = await inTenants([tenant.id], () => withTenantLock(deps, tenant.id, (db) => applyTenantRetention(deps, db, tenant)));
    if (run) runs.push(run);
  }
  return runs;
}

async function applyTenantRetention(
  deps: Deps,
  db: Kysely<Database>,
  tenant: { id: string; retention_days: number | null; audit_retention_days: number | null },
): Promise<TenantRetentionRun> {
  const now = deps.clock.now();
  const run: TenantRetentionRun = { tenantId: tenant.id, interactionsDeleted: 0, alertsDeleted: 0, auditEntriesDeleted: 0 };
  const cutoff = tenant.retention_days === null ? null : new Date(now.getTime() - tenant.retention_days * DAY_MS);
  const auditCutoff = tenant.audit_retention_days === null ? null : new Date(now.getTime() - tenant.audit_retention_days * DAY_MS);
  if (cutoff) {
    await deleteInBatches(async () => {
      const deleted = await deleteInteractionsBatch(db, tenant.id, sql`timestamp < ${cutoff}`, RETENTION_BATCH, true);
      run.interactionsDeleted += deleted.interactions;
      run.alertsDeleted += deleted.alerts;
      return deleted.interactions;
    }, RETENTION_BATCH, PAUSE_MS);
  }
  if (auditCutoff) {
    run.auditEntriesDeleted = await deleteInBatches(async () => {
      const result = await sql`delete from audit_log where tenant_id = ${tenant.id} and id in (
        select id from audit_log where tenant_id = ${tenant.id} and occurred_at < ${auditCutoff}
        order by occurred_at limit ${RETENTION_BATCH})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    }, RETENTION_BATCH, PAUSE_MS);
  }
  if (run.interactionsDeleted + run.auditEntriesDeleted > 0) {
    await writeAudit(db, systemContext(tenant.id), {
      action: 'retention.applied',
      targetType: 'tenant',
      targetId: tenant.id,
      details: {
        interactions_deleted: run.interactionsDeleted,
        alerts_deleted: run.alertsDeleted,
        audit_entries_deleted: run.auditEntriesDeleted,
        retention_days: tenant.retention_days,
        audit_retention_days: tenant.audit_retention_days,
        interactions_before: cutoff?.toISOString() ?? null,
        audit_entries_before: auditCutoff?.toISOString() ?? null,
      },
    }, now);
  }
  return run;
}

/**
 * Runs `work` while holding the tenant's retention lease (skipped, returning null, when another
 * replica holds it). Each batch is a statement of its own: requests interleave with them, on the
 * embedded store's single connection too.
 */
async function withTenantLock<T>(deps: Deps, tenantId: string, work: (db: Kysely<Database>) => Promise<T>): Promise<T | null> {
  return withLease(deps.store.db, LEASES.tenantRetention, () => work(deps.store.db), { key: tenantId });
}

/** Applies every tenant's retention at start, then every `intervalMs` (default one hour). */
export class DataRetentionWorker {
  private readonly poller: Poller;

  constructor(private readonly deps: Deps, private readonly logger: Logger, intervalMs = 60 * 60 * 1000) {
    this.poller = new Poller(() => this.run(), intervalMs,
      (error) => logFailure(deps.store, logger, 'warn', error, 'data retention failed; will retry'));
  }

  async start(): Promise<void> {
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  private async run(): Promise<false> {
    const runs = (await applyDataRetention(this.deps)).filter((run) => run.interactionsDeleted + run.auditEntriesDeleted > 0);
    for (const run of runs) this.logger.info(run, 'data retention applied');
    // The embedded store has no autovacuum: make the deleted rows' space reusable.
    if (runs.length > 0 && this.deps.store.kind === 'pglite') {
      await sql`vacuum interactions, interaction_classification_types, interaction_fingerprints, alerts, audit_log`
        .execute(inFixedScope(this.deps.store.db, TABLE_OWNER));
    }
    return false;
  }
}
