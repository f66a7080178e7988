import type { Kysely } from 'kysely';
import type { Database, Role } from '../../db/types.js';
import type { Actor, Scope } from '../../lib/context.js';
import { sha256Hex } from '../../lib/crypto.js';

export const SESSION_TOKEN_PREFIX = 'ugt_';
export const API_KEY_PREFIX = 'ugk_';
/** `last_used_at` of an API key is written at most this often, not on every request. */
const LAST_USED_PRECISION_MS = 60_000;

export interface Credential {
  tenantId: string;
  actor: Actor;
  role: Role | null;
  scopes: Scope[];
  sessionId: string | null;
}

/**
 * Finds who a bearer secret belongs to, in one indexed query. Roles and statuses are read
 * fresh on every request, so a role change, a disable or a revocation applies at once.
 */
export async function resolveBearer(db: Kysely<Database>, secret: string, now: Date): Promise<Credential | null> {
  const hash = sha256Hex(secret);
  if (secret.startsWith(API_KEY_PREFIX)) {
    const key = await db
      .selectFrom('api_keys')
      .select(['tenant_id', 'id', 'name', 'scopes', 'last_used_at'])
      .where('key_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!key) return null;
    if (!key.last_used_at || now.getTime() - key.last_used_at.getTime() > LAST_USED_PRECISION_MS) {
      await db.updateTable('api_keys').set({ last_used_at: now })
        .where('tenant_id', '=', key.tenant_id).where('id', '=', key.id).execute();
    }
    return {
      tenantId: key.tenant_id,
      actor: { type: 'api_key', id: key.id, label: key.name },
      role: null,
      scopes: key.scopes as Scope[],
      sessionId: null,
    };
  }
  const session = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', (join) => join.onRef('u.tenant_id', '=', 's.tenant_id').onRef('u.id', '=', 's.user_id'))
    .select(['s.tenant_id', 's.id as session_id', 'u.id as user_id', 'u.email', 'u.role'])
    .where('s.token_hash', '=', hash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('u.status', '=', 'active')
    .executeTakeFirst();
  if (!session) return null;
  return {
    tenantId: session.tenant_id,
    actor: { type: 'user', id: session.user_id, label: session.email },
    role: session.role,
    scopes: [],
    sessionId: session.session_id,
  };
}
