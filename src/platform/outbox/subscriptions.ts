import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { LOCK_IDS } from '../../kernel/lock-ids.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface Subscription {
  webhook_id: string;
  events: string[];
}

/**
 * The active webhooks of each tenant and the event types each wants, read under each tenant's
 * subscription lock in shared mode (held to the end of the caller's transaction; taken in the
 * order of `tenantIds`). A webhook change takes that lock alone (`lockSubscriptionChanges`), so
 * events committed by this transaction go exactly to the webhooks whose last change committed
 * before them.
 */
export async function subscriptionsOf(tx: Db, tenantIds: readonly string[]): Promise<Map<string, Subscription[]>> {
  const result = await sql<Subscription & { tenant_id: string }>`
    select t.tenant_id, s.webhook_id, s.events
    from unnest(${tenantIds}::uuid[]) with ordinality as t(tenant_id, n)
    cross join lateral webhook_subscriptions(t.tenant_id) as s
    order by t.n`.execute(tx);
  const byTenant = new Map<string, Subscription[]>();
  for (const { tenant_id, ...subscription } of result.rows) {
    let subscriptions = byTenant.get(tenant_id);
    if (!subscriptions) byTenant.set(tenant_id, (subscriptions = []));
    subscriptions.push(subscription);
  }
  return byTenant;
}

/**
 * Takes the tenant's subscription lock alone, until the end of the transaction: call it first
 * in every transaction that creates, deletes, enables, disables or re-subscribes a webhook.
 * It waits for the transactions that are emitting events of this tenant to commit.
 */
export async function lockSubscriptionChanges(tx: Transaction<Database>, tenantId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${LOCK_IDS.webhookSubscriptions}, hashtext(${tenantId}::text))`.execute(tx);
}
