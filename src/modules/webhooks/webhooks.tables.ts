import type { Generated } from 'kysely';
import type { Json, Timestamp } from '../../db/types.js';

/** A registered receiver. The secrets are stored because signing needs them; reads never return them. */
export interface WebhooksTable {
  tenant_id: string;
  id: string;
  url: string;
  events: Json<string[]>;
  active: boolean;
  /** When it was created or last re-enabled: it gets only events that occurred since. */
  active_since: Timestamp;
  description: string;
  headers: Json<Record<string, string>>;
  auth_token: string;
  signing_secret: string;
  /** The secret before the last rotation; it signs beside the new one until `previous_secret_expires_at`. */
  previous_signing_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_delivery_at: Timestamp | null;
  delivery_count: Generated<number>;
}

export type WebhookJobStatus = 'queued' | 'succeeded' | 'failed' | 'dropped';

/** One event to send to one webhook: a chain of up to N attempts over the exact same bytes. */
export interface WebhookJobsTable {
  tenant_id: string;
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** The envelope, serialised once: every attempt signs and sends these bytes. */
  payload: string;
  /** The number of the next (or in-flight) attempt, from 1. */
  attempt: number;
  next_attempt_at: Timestamp;
  lease_until: Timestamp | null;
  /** Who holds the lease: a worker only records an outcome while its lease is still the current one. */
  lease_id: string | null;
  status: WebhookJobStatus;
  created_at: Timestamp;
  finished_at: Timestamp | null;
}

/** One attempt, as the delivery history shows it. */
export interface WebhookDeliveriesTable {
  tenant_id: string;
  id: string;
  webhook_id: string;
  /** The job the attempt belongs to; null for the test operation. */
  job_id: string | null;
  event_id: string;
  event_type: string;
  attempt: number;
  is_test: boolean;
  attempted_at: Timestamp;
  status_code: number;
  response_time_ms: number;
  success: boolean;
  error: string | null;
}

/** Table types of the webhooks feature; merged into `Database` in src/db/types.ts. */
export interface WebhooksTables {
  webhooks: WebhooksTable;
  webhook_jobs: WebhookJobsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
