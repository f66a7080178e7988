import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import type { RequestContext } from '../../lib/context.js';
import { uuidv7 } from '../../lib/ids.js';

export interface AuditEntry {
  /** The entry's id, when the caller hands it out (an erasure's receipt); a new one otherwise. */
  id?: string;
  action: string;
  targetType?: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

/** Records an administrative change inside the caller's transaction: it exists iff the change does. */
export async function writeAudit(
  tx: Transaction<Database> | Kysely<Database>,
  ctx: RequestContext,
  entry: AuditEntry,
  now: Date,
): Promise<void> {
  await tx
    .insertInto('audit_log')
    .values({
      tenant_id: ctx.tenantId,
      id: entry.id ?? uuidv7(now.getTime()),
      occurred_at: now,
      actor_type: ctx.actor.type,
      actor_id: ctx.actor.id,
      actor_label: ctx.actor.label,
      action: entry.action,
      target_type: entry.targetType ?? null,
      target_id: entry.targetId ?? null,
      details: JSON.stringify(entry.details ?? {}),
      ip: ctx.ip,
      request_id: ctx.requestId,
    })
    .execute();
}
