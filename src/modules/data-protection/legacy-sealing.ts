import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Deps } from '../../platform/deps.js';
import { logFailure } from '../../platform/store/store-outages.js';
import { Poller } from '../../platform/poller.js';
import { sealingPayloads } from '../../platform/outbox/outbox.js';
import { sealLegacyClassification } from '../interactions/detected-values.js';
import { sealIdempotentResponse } from '../interactions/ingest/idempotency.js';
import { openWebhookSecrets, sealWebhookSecrets } from '../delivery/secrets.js';
import type { StoredClassification } from '../../kernel/tables/interactions.js';
import { acrossTenants } from '../../platform/store/tenant-scope.js';

// Rows written by releases before values were sealed hold them in clear: this pass seals them in
// small batches after an upgrade, while the service runs. Each step records where it is in
// background_passes, so a restart goes on from there and a finished step costs one read.

const BATCH = 500;
const PAUSE_MS = 20;
const HOUR_MS = 60 * 60 * 1000;
const STEPS = ['webhook-secrets', 'webhook-messages', 'idempotency-responses', 'interaction-values'] as const;
type Step = (typeof STEPS)[number];

/** What one batch did: how many rows it sealed, and where the next one starts (undefined: the step is done). */
interface BatchResult {
  sealed: number;
  next: string | undefined;
}

/**
 * Seals one batch of the first step not done yet; says which step and how many rows it sealed,
 * or undefined once every step is done (a read per step, then nothing more to do).
 */
export async function sealNextBatch(deps: Deps): Promise<{ step: Step; sealed: number } | undefined> {
  // An upgrade's one pass over every tenant's earlier rows.
  return acrossTenants(() => sealNextStep(deps));
}

async function sealNextStep(deps: Deps): Promise<{ step: Step; sealed: number } | undefined> {
  const done = await deps.store.db.selectFrom('background_passes').select(['name', 'position', 'completed_at'])
    .where('name', 'in', STEPS.map(passName)).execute();
  const step = STEPS.find((candidate) => !done.some((row) => row.name === passName(candidate) && row.completed_at));
  if (!step) return undefined;
  const position = done.find((row) => row.name === passName(step))?.position ?? undefined;
  const result = await BATCHES[step](deps, position);
  await record(deps, step, result.next);
  return { step, sealed: result.sealed };
}

const passName = (step: Step) => `seal-${step}`;

async function record(deps: Deps, step: Step, next: string | undefined) {
  const now = deps.clock.now();
  const row = { name: passName(step), position: next ?? null, completed_at: next === undefined ? now : null, updated_at: now };
  await deps.store.db.insertInto('background_passes').values(row)
    .onConflict((oc) => oc.column('name').doUpdateSet({ position: row.position, completed_at: row.completed_at, updated_at: now }))
    .execute();
  return row;
}

const BATCHES: Record<Step, (deps: Deps, position: string | undefined) => Promise<BatchResult>> = {
  'webhook-secrets': async (deps) => {
    const rows = await deps.store.db.selectFrom('webhooks').selectAll().where('secrets_sealed', '=', false).limit(BATCH).execute();
    const keys = await deps.keyring.forTenants(rows.map((row) => row.tenant_id));
    for (const row of rows) {
      const tenantKeys = keys.get(row.tenant_id)!;
      const sealed = sealWebhookSecrets(tenantKeys, openWebhookSecrets(tenantKeys, row));
      await deps.store.db.updateTable('webhooks').set(sealed)
        .where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).where('secrets_sealed', '=', false).execute();
    }
    return { sealed: rows.length, next: rows.length === BATCH ? '' : undefined };
  },

  'webhook-messages': async (deps) => {
    const rows = await deps.store.db.selectFrom('webhook_messages').select(['tenant_id', 'id', 'payload'])
      .where('payload', 'not like', 'v1.%').limit(BATCH).execute();
    const keys = await deps.keyring.forTenants(rows.map((row) => row.tenant_id));
    const seal = sealingPayloads(keys);
    for (const row of rows) {
      await deps.store.db.updateTable('webhook_messages').set({ payload: seal(row.tenant_id, row.payload) })
        .where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).where('payload', 'not like', 'v1.%').execute();
    }
    return { sealed: rows.length, next: rows.length === BATCH ? '' : undefined };
  },

  'idempotency-responses': async (deps) => {
    const { rows } = await sql<{ tenant_id: string; key: string; response_body: unknown }>`
      select tenant_id, key, response_body from idempotency_keys where json_typeof(response_body) = 'object'
      limit ${BATCH}`.execute(deps.store.db);
    const keys = await deps.keyring.forTenants(rows.map((row) => row.tenant_id));
    for (const row of rows) {
      const sealed = sealIdempotentResponse(keys.get(row.tenant_id)!, row.response_body);
      await sql`update idempotency_keys set response_body = to_json(${sealed}::text)
        where tenant_id = ${row.tenant_id} and key = ${row.key} and json_typeof(response_body) = 'object'`.execute(deps.store.db);
    }
    return { sealed: rows.length, next: rows.length === BATCH ? '' : undefined };
  },

  /** Walks every interaction once, in primary-key order from the recorded position. */
  'interaction-values': async (deps, position) => {
    const [afterTenant, afterId] = position ? position.split('/') : [];
    let query = deps.store.db.selectFrom('interactions').select(['tenant_id', 'id', 'timestamp', 'user_id', 'classifications']);
    if (afterTenant && afterId) query = query.where((eb) => eb(eb.refTuple('tenant_id', 'id'), '>', eb.tuple(afterTenant, afterId)));
    const rows = await query.orderBy('tenant_id').orderBy('id').limit(BATCH).execute();
    const legacy = rows.filter((row) => row.classifications.some((c) => c.value !== undefined));
    // Read before the transaction: the embedded store has one connection.
    const keys = await deps.keyring.forTenants(legacy.map((row) => row.tenant_id));
    await deps.store.db.transaction().execute(async (tx) => {
      for (const row of legacy) {
        const tenantKeys = keys.get(row.tenant_id)!;
        const classifications: StoredClassification[] = row.classifications.map((c) => sealLegacyClassification(tenantKeys, c));
        // Only while it still holds a value in clear: another process may have sealed it meanwhile.
        const updated = await tx.updateTable('interactions').set({ classifications: JSON.stringify(classifications) })
          .where('tenant_id', '=', row.tenant_id).where('id', '=', row.id)
          .where(sql<boolean>`jsonb_path_exists(classifications, '$[*].value')`).executeTakeFirst();
        const fingerprints = [...new Set(classifications.flatMap((c) => (c.fingerprint ? [c.fingerprint] : [])))];
        if (Number(updated.numUpdatedRows) === 0 || fingerprints.length === 0) continue;
        await tx.insertInto('interaction_fingerprints')
          .values(fingerprints.map((fingerprint) => ({
            tenant_id: row.tenant_id, interaction_id: row.id, fingerprint, timestamp: row.timestamp, user_id: row.user_id,
          })))
          .onConflict((oc) => oc.doNothing()).execute();
      }
    });
    const last = rows.at(-1);
    return { sealed: legacy.length, next: rows.length === BATCH && last ? `${last.tenant_id}/${last.id}` : undefined };
  },
};

/**
 * Runs the pass from start, batch after batch (a short pause between two), until every step is
 * done; then looks again hourly, which costs one read. A failure is logged and retried at the
 * next poll.
 */
export class LegacySealingWorker {
  private readonly poller: Poller;
  private readonly sealed: Partial<Record<Step, number>> = {};

  constructor(private readonly deps: Deps, private readonly logger: Logger) {
    this.poller = new Poller(() => this.sealBatch(), HOUR_MS, (error) =>
      logFailure(deps.store, logger, 'warn', error, 'sealing of earlier values failed; will retry'));
  }

  async start(): Promise<void> {
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  private async sealBatch(): Promise<boolean> {
    const batch = await sealNextBatch(this.deps);
    if (batch) {
      this.sealed[batch.step] = (this.sealed[batch.step] ?? 0) + batch.sealed;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      return true;
    }
    if (Object.values(this.sealed).some((n) => n > 0)) this.logger.info(this.sealed, 'values of an earlier release sealed');
    for (const step of STEPS) delete this.sealed[step];
    return false;
  }
}
