import type { InteractionsTables } from './interactions.js';
import type { UsersTables } from './users.js';
import type { SsoTables } from './sso.js';
import type { WebhooksTables } from './webhooks.js';
import type { DeliveryTables } from './delivery.js';
import type { CountsTables } from './counts.js';
import type { ProtectionTables } from './protection.js';
import type { RateLimitTables } from './rate-limits.js';
import type { LeasesTables } from './leases.js';
import type { ScimTables } from './scim.js';
import type { PlatformsTables } from './platforms.js';
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

import type { Json, Timestamp } from './columns.js';

export type { Json, Timestamp };

export type Role = 'admin' | 'viewer';
export type UserStatus = 'pending' | 'active' | 'inactive';

export interface TenantsTable {
  id: string;
  name: string;
  created_at: Timestamp;
  /** Days interactions and their alerts are kept; null: forever. */
  retention_days: number | null;
  /** Days audit entries are kept (365 or more); null: forever. */
  audit_retention_days: number | null;
  validate_signals: Generated<boolean>;
  /** `keep`: detected values are stored encrypted and returned as sent; `mask`: only their masked form is kept. */
  signal_values: Generated<'keep' | 'mask'>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface UsersTable {
  tenant_id: string;
  id: string;
  email: string;
  display_name: string | null;
  role: Role;
  status: UserStatus;
  password_hash: string | null;
  invited_by: string | null;
  invitation_expires_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_login: Timestamp | null;
}

export interface SessionsTable {
  tenant_id: string;
  id: string;
  user_id: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface ApiKeysTable {
  tenant_id: string;
  id: string;
  name: string;
  key_prefix: string;
  key_hash: string;
  scopes: Json<string[]>;
  created_by: string | null;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface LoginFailuresTable {
  id: Generated<string>;
  subject: string;
  failed_at: Timestamp;
}

export interface AuditLogTable {
  tenant_id: string;
  id: string;
  occurred_at: Timestamp;
  actor_type: 'user' | 'api_key' | 'system';
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Json<Record<string, unknown>>;
  ip: string | null;
  request_id: string | null;
}

export interface MailOutboxTable {
  tenant_id: string;
  id: string;
  recipient: string;
  subject: string;
  body_text: string;
  created_at: Timestamp;
  attempts: number;
  next_attempt_at: Timestamp;
  lease_until: Timestamp | null;
  sent_at: Timestamp | null;
  last_error: string | null;
}

export interface ServiceMetaTable {
  key: string;
  value: string;
}

/** Counters bumped by triggers on every change of a tenant's credentials or policies: the caches' freshness check. */
export interface TenantVersionsTable {
  tenant_id: string;
  credentials: ColumnType<number, number | undefined, number>;
  policies: ColumnType<number, number | undefined, number>;
}

export interface FoundationTables {
  tenants: TenantsTable;
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  login_failures: LoginFailuresTable;
  audit_log: AuditLogTable;
  mail_outbox: MailOutboxTable;
  service_meta: ServiceMetaTable;
  tenant_versions: TenantVersionsTable;
}

/** Every table: the foundation's, plus each feature's own. */
export interface Database extends FoundationTables, UsersTables, InteractionsTables, CountsTables, WebhooksTables, DeliveryTables,
  ProtectionTables, RateLimitTables, LeasesTables, SsoTables, ScimTables, PlatformsTables {}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
