import type { Timestamp } from './columns.js';

/** A one-time invitation link; the token itself is never stored, only its SHA-256. */
export interface InvitationsTable {
  tenant_id: string;
  id: string;
  user_id: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** Table types of the users feature; merged into `Database` in src/db/types.ts. */
export interface UsersTables {
  invitations: InvitationsTable;
}
