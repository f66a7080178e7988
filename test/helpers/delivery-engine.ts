import { sql } from 'kysely';
import { openPayload } from '../../src/platform/outbox/outbox.js';
import pino from 'pino';
import { DeliveryWorker } from '../../src/modules/delivery/delivery.worker.js';
import type { Harness } from './harness.js';

/** A delivery worker on the harness's store, started by the test and stopped by it (the harness runs none). */
export async function startDeliveryWorker(h: Harness): Promise<DeliveryWorker> {
  const worker = new DeliveryWorker(h.deps, pino({ level: 'silent' }), { pollIntervalMs: 50 });
  await worker.start();
  return worker;
}

/** Runs `work` with a delivery worker running, and stops it (recording every attempt in flight) afterwards. */
export async function withDeliveryWorker<T>(h: Harness, work: () => Promise<T>): Promise<T> {
  const worker = await startDeliveryWorker(h);
  try {
    return await work();
  } finally {
    await worker.stop();
  }
}

export interface JobRow {
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
}

/** The unfinished jobs of a tenant (optionally of one webhook), oldest first. */
export async function jobsOf(h: Harness, tenantId: string, webhookId?: string): Promise<JobRow[]> {
  let query = h.db.selectFrom('webhook_jobs').select(['webhook_id', 'event_id', 'event_type', 'attempt'])
    .where('tenant_id', '=', tenantId);
  if (webhookId) query = query.where('webhook_id', '=', webhookId);
  return query.orderBy('id').execute();
}

/** The ids of the events queued for one webhook (one per job, duplicates kept). */
export async function queuedEventIds(h: Harness, tenantId: string, webhookId: string): Promise<string[]> {
  return (await jobsOf(h, tenantId, webhookId)).map((job) => job.event_id);
}

/** The stored envelopes of a tenant: event id -> the `data.id` of the event (the interaction, policy, ... it is about). */
export async function messagesOf(h: Harness, tenantId: string): Promise<Map<string, unknown>> {
  const rows = await h.db.selectFrom('webhook_messages').select(['id', 'payload']).where('tenant_id', '=', tenantId).execute();
  const keys = await h.deps.keyring.forTenant(tenantId);
  return new Map(rows.map((row) => [row.id, (JSON.parse(openPayload(keys, row.payload)) as { data?: { id?: unknown } }).data?.id]));
}

export async function countOf(h: Harness, table: 'webhook_jobs' | 'webhook_messages' | 'webhook_deliveries', tenantId?: string) {
  let query = h.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
  if (tenantId) query = query.where('tenant_id', '=', tenantId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/**
 * The `data.id` of the events queued for one webhook (for interaction events: the interaction
 * ids), read through the job -> message link the workers use.
 */
export async function queuedDataIds(h: Harness, tenantId: string, webhookId: string): Promise<string[]> {
  const result = await sql<{ payload: string }>`
    select m.payload from webhook_jobs j
    join webhook_messages m on m.tenant_id = j.tenant_id and m.id = j.event_id
    where j.tenant_id = ${tenantId} and j.webhook_id = ${webhookId}
    order by j.id`.execute(h.db);
  const keys = await h.deps.keyring.forTenant(tenantId);
  return result.rows.map((row) => String((JSON.parse(openPayload(keys, row.payload)) as { data: { id: unknown } }).data.id));
}

/** PostgreSQL only: how many advisory lock requests of this database are waiting. */
export async function waitingAdvisoryLocks(h: Harness): Promise<number> {
  const result = await sql<{ n: number }>`
    select count(*)::int as n from pg_locks
    where locktype = 'advisory' and not granted
      and database = (select oid from pg_database where datname = current_database())`.execute(h.db);
  return result.rows[0]!.n;
}

/** A promise and the function that resolves it: holds a transaction open until the test says so. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A small seeded generator (mulberry32), so a failing random run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
