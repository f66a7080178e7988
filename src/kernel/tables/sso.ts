import type { ColumnType } from 'kysely';
import type { Json, Timestamp } from './columns.js';

/** A tenant's OpenID provider; the client secret is sealed with the tenant's data key. */
export interface TenantSsoTable {
  tenant_id: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  allowed_domains: Json<string[]>;
  role_claim: string;
  admin_values: Json<string[]>;
  default_role: 'admin' | 'viewer' | null;
  enforce: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  updated_by: string | null;
}

/** A sign-in under way: what its callback must find again. Only hashes of `state` and of the browser's cookie. */
export interface SsoFlowsTable {
  tenant_id: string;
  state_hash: string;
  browser_hash: string;
  nonce: string;
  /** The PKCE verifier, sealed with the tenant's data key. */
  code_verifier: string;
  return_to: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date>;
}

/** A one-time code the console turns into a session; only its hash is stored. */
export interface SsoExchangesTable {
  tenant_id: string;
  code_hash: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date>;
}

export interface SsoTables {
  tenant_sso: TenantSsoTable;
  sso_flows: SsoFlowsTable;
  sso_exchanges: SsoExchangesTable;
}
