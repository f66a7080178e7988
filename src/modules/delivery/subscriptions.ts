import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../db/types.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface Subscription {
  webhook_id: string;
  events: string[];
}

/**
 * The tenant's active webhooks and the event types each wants, read under the tenant's
 * subscription lock in shared mode (held to the end of the caller's transaction). A webhook
 * change takes that lock alone (`lockSubscriptionChanges`), so events committed by this
 * transaction go exactly to the webhooks whose last change committed before them.
 */
export async function subscriptionsOf(tx: Db, tenantId: string): Promise<Subscription[]> {
  const result = await sql<Subscription>`select webhook_id, events from webhook_subscriptions(${tenantId})`.execute(tx);
  return result.rows;
}

/**
 * Takes the tenant's subscription lock alone, until the end of the transaction: call it first
 * in every transaction that creates, deletes, enables, disables or re-subscribes a webhook.
 * It waits for the transactions that are emitting events of this tenant to commit.
 */
export async function lockSubscriptionChanges(tx: Transaction<Database>, tenantId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(7768, hashtext(${tenantId}::text))`.execute(tx);
}
