import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Deps } from '../../platform/deps.js';
import { logFailure } from '../../platform/store/store-outages.js';
import { sealingPayloads } from '../../platform/outbox/outbox.js';
import { sealLegacyClassification } from '../interactions/detected-values.js';
import { sealIdempotentResponse } from '../interactions/ingest/idempotency.js';
import { openWebhookSecrets, sealWebhookSecrets } from '../delivery/secrets.js';
import type { StoredClassification } from '../../kernel/tables/interactions.js';

// Rows written by releases before values were sealed hold them in clear: this pass seals them in
// small batches after an upgrade, while the service runs. Each step records where it is in
// background_passes, so a restart goes on from there and a finished step costs one read.

const BATCH = 500;
const PAUSE_MS = 20;
const STEPS = ['webhook-secrets', 'webhook-messages', 'idempotency-responses', 'interaction-values'] as const;
type Step = (typeof STEPS)[number];

/** What one batch did: how many rows it sealed, and where the next one starts (undefined: the step is done). */
interface BatchResult {
  sealed: number;
  next: string | undefined;
}

/** Runs every step to its end; returns how many rows each sealed. */
export async function sealLegacyRows(deps: Deps, isStopped: () => boolean = () => false): Promise<Record<Step, number>> {
  const sealed = Object.fromEntries(STEPS.map((step) => [step, 0])) as Record<Step, number>;
  for (const step of STEPS) {
    let state = await deps.store.db.selectFrom('background_passes').select(['position', 'completed_at'])
      .where('name', '=', passName(step)).executeTakeFirst();
    while (!state?.completed_at && !isStopped()) {
      const result = await BATCHES[step](deps, state?.position ?? undefined);
      sealed[step] += result.sealed;
      state = await record(deps, step, result.next);
      if (result.next !== undefined) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
  }
  return sealed;
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

/** Runs the pass once at start, until it is done or the worker stops; a failure is retried a minute later. */
export class LegacySealingWorker {
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly deps: Deps, private readonly logger: Logger) {}

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
      this.running = sealLegacyRows(this.deps, () => this.stopped)
        .then((sealed) => {
          if (Object.values(sealed).some((n) => n > 0)) this.logger.info(sealed, 'values of an earlier release sealed');
        }, (error: unknown) => {
          logFailure(this.deps.store, this.logger, 'warn', error, 'sealing of earlier values failed; will retry');
          if (!this.stopped) this.schedule(60_000);
        })
        .finally(() => {
          this.running = undefined;
        });
    }, delayMs);
    this.timer.unref();
  }
}
