import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { signalFingerprint } from '../../platform/crypto/signal-values.js';
import type { SignalLookup, SignalLookupInput } from './interactions.schemas.js';
import { writeAudit } from '../audit/audit.writer.js';

/**
 * Where a detected value was seen in the tenant, found by its fingerprint without reading any
 * stored value: one index-only range of interaction_fingerprints (one row per interaction).
 * Audited (type and fingerprint, never the value): a masked value's last characters and its
 * fingerprint make guesses checkable, so who asked what stays on record.
 */
export async function lookupSignal(deps: Deps, ctx: RequestContext, input: SignalLookupInput): Promise<SignalLookup> {
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const fingerprint = signalFingerprint(keys, input.type, input.value);
  // Grouped by user first, which the planner may hash (a few hundred users) when it expects many
  // rows; `count(distinct user_id)` always sorts every row (half the statement at 10,000 rows).
  const perUser = deps.store.db.selectFrom('interaction_fingerprints')
    .select((eb) => ['user_id', eb.fn.countAll<string>().as('seen'),
      eb.fn.min('timestamp').as('first_seen'), eb.fn.max('timestamp').as('last_seen')])
    .where('tenant_id', '=', ctx.tenantId)
    .where('fingerprint', '=', fingerprint)
    .groupBy('user_id')
    .as('per_user');
  const seen = await deps.store.db.selectFrom(perUser)
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<string>('seen'), eb.lit(0)).as('interactions'),
      eb.fn.count<string>('user_id').as('users'),
      eb.fn.min('first_seen').as('first_seen'),
      eb.fn.max('last_seen').as('last_seen'),
    ])
    .executeTakeFirstOrThrow();
  await writeAudit(deps.store.db, ctx, {
    action: 'signals.looked_up', targetType: 'signal', targetId: fingerprint,
    details: { type: input.type.toUpperCase(), interactions: Number(seen.interactions) },
  }, deps.clock.now());
  return {
    fingerprint,
    interactions: Number(seen.interactions),
    users: Number(seen.users),
    first_seen: seen.first_seen ? new Date(seen.first_seen).toISOString() : null,
    last_seen: seen.last_seen ? new Date(seen.last_seen).toISOString() : null,
  };
}
