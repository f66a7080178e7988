import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { RequestContext } from '../../kernel/context.js';
import { uuidv7 } from '../../kernel/ids.js';
import { emit } from '../../platform/outbox/outbox.js';
import type { AuditEntryResponse } from './audit.schemas.js';

export interface AuditEntry {
  /** The entry's id, when the caller hands it out (an erasure's receipt); a new one otherwise. */
  id?: string;
  action: string;
  targetType?: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

/**
 * Records an administrative change inside the caller's transaction: it exists iff the change
 * does. It is also the `audit.entry` event, for the webhooks that subscribe to it (a SIEM).
 */
export async function writeAudit(
  tx: Transaction<Database> | Kysely<Database>,
  ctx: RequestContext,
  entry: AuditEntry,
  now: Date,
): Promise<void> {
  // The entry and its event commit together (the event's fan-out locks in the transaction).
  if (!tx.isTransaction) return tx.transaction().execute((own) => writeAudit(own, ctx, entry, now));
  const written: AuditEntryResponse = {
    id: entry.id ?? uuidv7(now.getTime()),
    occurred_at: now.toISOString(),
    actor_type: ctx.actor.type,
    actor_id: ctx.actor.id,
    actor_label: ctx.actor.label,
    action: entry.action,
    target_type: entry.targetType ?? null,
    target_id: entry.targetId ?? null,
    details: entry.details ?? {},
    ip: ctx.ip,
    request_id: ctx.requestId,
  };
  await tx
    .insertInto('audit_log')
    .values({ ...written, tenant_id: ctx.tenantId, actor_type: ctx.actor.type, occurred_at: now, details: JSON.stringify(written.details) })
    .execute();
  await emit(tx, ctx.tenantId, 'audit.entry', written, now);
}
