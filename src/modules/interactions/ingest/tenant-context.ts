import { type Transaction, sql } from 'kysely';
import type { TenantVersions } from '../../../platform/store/tenant-versions.js';
import type { Database } from '../../../kernel/tables/database.js';
import type { Subscription } from '../../../platform/outbox/subscriptions.js';

/** What a group commit reads of its tenants before it writes. */
export interface GroupContext {
  versions: Map<string, TenantVersions>;
  subscriptions: Map<string, Subscription[]>;
  /** The tenants whose setting `validate_signals` is on. */
  validatingSignals: Set<string>;
  /** The tenants whose setting `signal_values` is `mask`. */
  maskingValues: Set<string>;
}

/**
 * The tenants' counters, their signal settings and their active webhooks, in one query: each tenant's subscription lock
 * is taken in shared mode by `webhook_subscriptions` (see `subscriptionsOf`), so the events this
 * transaction commits go exactly to the webhooks whose last change committed before them.
 */
export async function readGroupContext(tx: Transaction<Database>, tenantIds: readonly string[]): Promise<GroupContext> {
  const { rows } = await sql<{
    tenant_id: string; credentials: number; policies: number; validate_signals: boolean; signal_values: string; subscriptions: Subscription[];
  }>`
    select t.tenant_id, coalesce(v.credentials, 0)::int8 as credentials, coalesce(v.policies, 0)::int8 as policies,
      coalesce(tn.validate_signals, true) as validate_signals, coalesce(tn.signal_values, 'keep') as signal_values,
      (select coalesce(json_agg(json_build_object('webhook_id', s.webhook_id, 'events', s.events)), '[]'::json)
       from webhook_subscriptions(t.tenant_id) as s) as subscriptions
    from unnest(${tenantIds}::uuid[]) with ordinality as t(tenant_id, n)
    left join tenant_versions v on v.tenant_id = t.tenant_id
    left join tenants tn on tn.id = t.tenant_id
    order by t.n`.execute(tx);
  const context: GroupContext = { versions: new Map(), subscriptions: new Map(), validatingSignals: new Set(), maskingValues: new Set() };
  for (const row of rows) {
    if (row.validate_signals) context.validatingSignals.add(row.tenant_id);
    if (row.signal_values === 'mask') context.maskingValues.add(row.tenant_id);
    context.versions.set(row.tenant_id, { credentials: Number(row.credentials), policies: Number(row.policies) });
    if (row.subscriptions.length > 0) context.subscriptions.set(row.tenant_id, row.subscriptions);
  }
  return context;
}
