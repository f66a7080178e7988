import type { Generated } from 'kysely';
import type { Timestamp } from './columns.js';

/** The envelope of an event that at least one webhook wanted, stored once for all its jobs. */
export interface WebhookMessagesTable {
  tenant_id: string;
  /** The event id (`evt_…`). */
  id: string;
  event_type: string;
  /** The envelope, serialised once: every attempt to every webhook signs and sends these bytes. */
  payload: string;
  created_at: Timestamp;
}

/**
 * One event still to deliver to one webhook. Only unfinished work lives here: a job is deleted
 * when its event is delivered, when its last attempt failed, or when its webhook stops.
 */
export interface WebhookJobsTable {
  tenant_id: string;
  id: Generated<number>;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** The number of the next (or in-flight) attempt, from 1. */
  attempt: number;
  run_at: Timestamp;
  lease_until: Timestamp | null;
  /** The worker holding the lease: only it may record the outcome while the lease is current. */
  lease_id: string | null;
  created_at: Timestamp;
}

/** Table types of the delivery engine; merged into `Database` in src/db/types.ts. */
export interface DeliveryTables {
  webhook_messages: WebhookMessagesTable;
  webhook_jobs: WebhookJobsTable;
}
