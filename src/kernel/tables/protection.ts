import type { Timestamp } from './columns.js';

/**
 * A tenant's keys, each wrapped (encrypted) under a master key that `master_key_id` names. During
 * a rotation the wrapping under the previous master key stays in `previous_*` until it is retired.
 */
export interface TenantKeysTable {
  tenant_id: string;
  master_key_id: string;
  data_key: string;
  fingerprint_key: string;
  previous_master_key_id: string | null;
  previous_data_key: string | null;
  previous_fingerprint_key: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A background pass over existing rows (sealing values written before encryption): where it is, when it ended. */
export interface BackgroundPassesTable {
  name: string;
  position: string | null;
  completed_at: Timestamp | null;
  updated_at: Timestamp;
}

/** Table types of data protection; merged into `Database`. */
export interface ProtectionTables {
  tenant_keys: TenantKeysTable;
  background_passes: BackgroundPassesTable;
}
