import type { Kysely, Selectable, Transaction } from 'kysely';
import { dropQueuedJobs, queueDepths, type QueueDepth } from '../delivery/queue.js';
import type { Database } from '../../kernel/tables/database.js';
import type { WebhookFormat } from '../../kernel/vocabulary.js';
import { type Keyset, KeysetPage, sortKey } from '../../kernel/paging/cursor.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import type { DeliveryRecordResponse, WebhookResponse } from './webhooks.schemas.js';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../kernel/tables/webhooks.js';

type Db = Kysely<Database> | Transaction<Database>;
export type WebhookRow = Selectable<WebhooksTable>;

export async function findWebhook(db: Db, tenantId: string, id: string, forUpdate = false): Promise<WebhookRow | undefined> {
  const query = db.selectFrom('webhooks').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

const WEBHOOKS_NEWEST_FIRST: Keyset = { keys: [sortKey.instant('created_at'), sortKey.text('id')], direction: 'desc' };
const DELIVERIES_NEWEST_FIRST: Keyset = { keys: [sortKey.instant('attempted_at'), sortKey.text('id')], direction: 'desc' };

export async function listWebhooks(db: Db, tenantId: string, filter: { active?: boolean | undefined }, request: PageRequest) {
  const base = db.selectFrom('webhooks').where((eb) => {
    const conditions = [eb('tenant_id', '=', tenantId)];
    if (filter.active !== undefined) conditions.push(eb('active', '=', filter.active));
    return eb.and(conditions);
  });
  const paging = KeysetPage.open(request, WEBHOOKS_NEWEST_FIRST, { list: 'webhooks', active: filter.active });
  const [rows, count] = await Promise.all([
    paging.apply(base.selectAll()).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { ...paging.close(rows), total: Number(count.total) };
}

/** Removes a webhook with its queue and history. Returns the removed row, if there was one. */
export async function deleteWebhook(tx: Transaction<Database>, tenantId: string, id: string) {
  const removed = await tx
    .deleteFrom('webhooks')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning(['id', 'url'])
    .executeTakeFirst();
  if (!removed) return undefined;
  await dropQueuedJobs(tx, tenantId, id);
  await tx.deleteFrom('webhook_deliveries').where('tenant_id', '=', tenantId).where('webhook_id', '=', id).execute();
  return removed;
}

export async function listDeliveries(db: Db, tenantId: string, webhookId: string, request: PageRequest) {
  const base = db.selectFrom('webhook_deliveries').where('tenant_id', '=', tenantId).where('webhook_id', '=', webhookId);
  const paging = KeysetPage.open(request, DELIVERIES_NEWEST_FIRST, { list: 'webhook-deliveries', webhook_id: webhookId });
  const [rows, count] = await Promise.all([
    paging.apply(base.selectAll()).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { ...paging.close(rows), total: Number(count.total) };
}

export async function findDelivery(db: Db, tenantId: string, webhookId: string, deliveryId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
}

/**
 * Whether the envelope of an event is still stored (it is while a job or its history refers to
 * it), locked until the end of the transaction so that the retention purge skips it meanwhile.
 */
export async function lockStoredEvent(tx: Transaction<Database>, tenantId: string, eventId: string): Promise<boolean> {
  const message = await tx.selectFrom('webhook_messages').select('id').where('tenant_id', '=', tenantId).where('id', '=', eventId)
    .forShare().executeTakeFirst();
  return message !== undefined;
}

/** Webhooks as reads return them, with what waits in each one's queue. */
export async function withQueueDepths(db: Db, tenantId: string, rows: readonly WebhookRow[]): Promise<WebhookResponse[]> {
  const depths = await queueDepths(db, tenantId, rows.map((row) => row.id));
  return rows.map((row) => toWebhookResponse(row, depths.get(row.id)));
}

/** A webhook as reads return it; `depth` undefined: nothing queued. */
export function toWebhookResponse(row: WebhookRow, depth: QueueDepth | undefined): WebhookResponse {
  return {
    id: row.id,
    url: row.url,
    format: row.format as WebhookFormat,
    events: row.events,
    active: row.active,
    description: row.description,
    headers: row.headers,
    has_auth_token: row.auth_token !== '',
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_delivery: row.last_delivery_at?.toISOString() ?? null,
    delivery_count: Number(row.delivery_count),
    queued: depth?.queued ?? 0,
    oldest_queued_at: depth?.oldest_queued_at?.toISOString() ?? null,
  };
}

export function toDeliveryResponse(row: Selectable<WebhookDeliveriesTable>): DeliveryRecordResponse {
  return {
    id: row.id,
    timestamp: row.attempted_at.toISOString(),
    event_type: row.event_type,
    event_id: row.event_id,
    attempt: row.attempt,
    test: row.is_test,
    format: row.format as WebhookFormat,
    status_code: row.status_code,
    response_time_ms: row.response_time_ms,
    success: row.success,
    ...(row.error === null ? {} : { error: row.error }),
  };
}
