import type { Json, Timestamp } from './columns.js';
import type { PlatformStatus } from './platforms.js';

export type InteractionType = 'prompt' | 'completion' | 'tool_call' | 'embedding';
export type Direction = 'outbound' | 'inbound';
export type Source = 'browser_extension' | 'proxy' | 'endpoint_agent' | 'api';
export type PolicyAction = 'block' | 'coach' | 'log';
export type Severity = 'low' | 'medium' | 'high' | 'critical';
export type AlertStatus = 'open' | 'resolved';

export interface Classification {
  type: string;
  value: string;
  score: number;
  start: number;
  end: number;
  /** Set by the service when the tenant validates signals: whether `value` passed its type's check. */
  validated?: boolean;
  /** `fp_…`: the same value of the same type has the same one within a tenant (absent on rows never sealed). */
  fingerprint?: string;
}

/**
 * A classification as stored: the value encrypted under the tenant's data key (`sealed_value`),
 * or only its masked form when the tenant masks values (`masked_value`). Rows written before
 * values were sealed hold `value` in clear until the sealing pass reaches them.
 */
export interface StoredClassification extends Omit<Classification, 'value'> {
  sealed_value?: string;
  masked_value?: string;
  value?: string;
}

/** A decision as stored on the interaction and returned by its API (events drop matched_conditions). */
export interface PolicyDecision {
  policy_id: string;
  policy_name: string;
  action: PolicyAction;
  matched_conditions: number;
  /** The policy's message, in a create's answer only: never stored with the interaction. */
  message?: string;
}

export interface PolicyConditions {
  platform_ids?: string[];
  classification_types?: string[];
  min_risk_score?: number;
  directions?: Direction[];
  sources?: Source[];
  interaction_types?: InteractionType[];
  validated_only?: boolean;
  platform_statuses?: PlatformStatus[];
}

export interface InteractionsTable {
  tenant_id: string;
  id: string;
  timestamp: Timestamp;
  platform_id: string;
  content_hash: string;
  interaction_type: InteractionType;
  content_metadata: Json<Record<string, unknown>>;
  classifications: Json<StoredClassification[]>;
  risk_score: number;
  direction: Direction;
  source: Source;
  user_id: string | null;
  policy_decisions: Json<PolicyDecision[]>;
}

/** One row per distinct classification type of an interaction: serves the type filter and stats. */
export interface InteractionClassificationTypesTable {
  tenant_id: string;
  interaction_id: string;
  classification_type: string;
  timestamp: Timestamp;
}

export interface PoliciesTable {
  tenant_id: string;
  id: string;
  name: string;
  description: string;
  action: PolicyAction;
  severity: Severity;
  enabled: boolean;
  conditions: Json<PolicyConditions>;
  /** Shown by the client when the policy coaches or blocks (null: none). */
  message: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AlertsTable {
  tenant_id: string;
  id: string;
  interaction_id: string;
  policy_id: string;
  policy_name: string;
  severity: Severity;
  status: AlertStatus;
  created_at: Timestamp;
  resolved_at: Timestamp | null;
  resolved_by: string | null;
}

/** The first response of a create made with an `Idempotency-Key`, replayed for 24 h. */
export interface IdempotencyKeysTable {
  tenant_id: string;
  key: string;
  fingerprint: string;
  response_status: number;
  response_body: Json<unknown>;
  created_at: Timestamp;
}

/** One row per distinct detected value of an interaction: finds a value's interactions without reading it. */
export interface InteractionFingerprintsTable {
  tenant_id: string;
  interaction_id: string;
  fingerprint: string;
  timestamp: Timestamp;
  user_id: string | null;
}

/** Table types of the interactions, policies and alerts features; merged into `Database`. */
export interface InteractionsTables {
  interactions: InteractionsTable;
  interaction_classification_types: InteractionClassificationTypesTable;
  interaction_fingerprints: InteractionFingerprintsTable;
  policies: PoliciesTable;
  alerts: AlertsTable;
  idempotency_keys: IdempotencyKeysTable;
}
