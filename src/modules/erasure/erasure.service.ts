import { sql } from 'kysely';
import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { AppError, notFound } from '../../kernel/errors.js';
import { isUuid, uuidv7 } from '../../kernel/ids.js';
import { deleteInBatches } from '../../kernel/batches.js';
import { writeAudit } from '../audit/audit.writer.js';
import { deleteInteractionsBatch } from '../interactions/interactions.purge.js';
import { forgetSightingsUser } from '../platforms/platforms.sightings.js';
import { forgetRollupUser } from '../rollups/usage-rollups.job.js';

/** Interactions deleted per statement: one short transaction each, whatever the person's volume. */
const ERASURE_BATCH = 1000;
const ACTION = 'interactions.erased';

export interface ErasureReceipt {
  erasure_id: string;
  user_id: string;
  interactions_deleted: number;
  alerts_deleted: number;
  requested_by: string;
  completed_at: string;
}

/**
 * Erases every interaction carrying `userId` (a member or not) and their alerts, in batches, and
 * the person's id from the platforms' first sightings, then records the receipt as an audit entry whose id is the erasure id. Asking again is safe: a
 * request cut short leaves fewer rows to delete, and a repeat deletes what arrived since.
 */
export async function eraseUserInteractions(deps: Deps, ctx: RequestContext, userId: string): Promise<ErasureReceipt> {
  const requestedBy = ctx.actor.id;
  if (ctx.actor.type !== 'user' || !requestedBy) throw new AppError('forbidden', 'Only an admin may erase interactions');
  const db = deps.store.db;
  let alerts = 0;
  const interactions = await deleteInBatches(async () => {
    const deleted = await deleteInteractionsBatch(db, ctx.tenantId, sql`user_id = ${userId}`, ERASURE_BATCH);
    alerts += deleted.alerts;
    return deleted.interactions;
  }, ERASURE_BATCH, 0);
  await forgetSightingsUser(db, ctx.tenantId, userId);
  await forgetRollupUser(db, ctx.tenantId, userId);
  const completedAt = deps.clock.now();
  const receipt: ErasureReceipt = {
    erasure_id: uuidv7(completedAt.getTime()),
    user_id: userId,
    interactions_deleted: interactions,
    alerts_deleted: alerts,
    requested_by: requestedBy,
    completed_at: completedAt.toISOString(),
  };
  await writeAudit(db, ctx, { id: receipt.erasure_id, action: ACTION, targetType: 'user', targetId: userId, details: { ...receipt } }, completedAt);
  return receipt;
}

/** The receipt of an erasure of this tenant, from its audit entry. */
export async function getErasureReceipt(deps: Deps, ctx: RequestContext, erasureId: string): Promise<ErasureReceipt> {
  if (!isUuid(erasureId)) throw notFound('Erasure');
  const entry = await deps.store.db.selectFrom('audit_log').select('details')
    .where('tenant_id', '=', ctx.tenantId).where('id', '=', erasureId).where('action', '=', ACTION)
    .executeTakeFirst();
  if (!entry) throw notFound('Erasure');
  return entry.details as unknown as ErasureReceipt;
}
