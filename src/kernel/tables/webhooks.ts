import type { Generated } from 'kysely';
import type { Json, Timestamp } from './columns.js';

/** A registered receiver. The secrets are stored because signing needs them; reads never return them. */
export interface WebhooksTable {
  tenant_id: string;
  id: string;
  url: string;
  events: Json<string[]>;
  /** The body format of its deliveries: `standard` or `ocsf` (the API checks the value). */
  format: Generated<string>;
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
  /** Whether the secrets, token and header values are encrypted (rows of earlier releases: not until sealed). */
  secrets_sealed: Generated<boolean>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_delivery_at: Timestamp | null;
  delivery_count: Generated<number>;
}

/** One attempt, as the delivery history shows it. */
export interface WebhookDeliveriesTable {
  tenant_id: string;
  id: string;
  webhook_id: string;
  /** Unused since v0.2 (the event id finds the payload); kept for the history of v0.1. */
  job_id: string | null;
  event_id: string;
  event_type: string;
  attempt: number;
  is_test: boolean;
  /** The body format the attempt was sent in (its webhook's format at that moment). */
  format: Generated<string>;
  attempted_at: Timestamp;
  status_code: number;
  response_time_ms: number;
  success: boolean;
  error: string | null;
}

/** Table types of the webhooks feature; merged into `Database` in src/db/types.ts. */
export interface WebhooksTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
