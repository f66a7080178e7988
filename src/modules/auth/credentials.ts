import type { Kysely } from 'kysely';
import type { Database, Role } from '../../kernel/tables/database.js';
import type { Actor, Scope } from '../../kernel/context.js';


export interface Credential {
  tenantId: string;
  actor: Actor;
  role: Role | null;
  scopes: Scope[];
  sessionId: string | null;
}

/** A credential as stored now, with what a cache needs to know when it stops being valid. */
export interface LoadedCredential {
  credential: Credential;
  /** The tenant's credentials counter, read in the same snapshot as the credential. */
  version: number;
  /** When a session token expires; null for API keys. */
  expiresAt: Date | null;
  /** When an API key was last marked used; null for sessions. */
  lastUsedAt: Date | null;
}

/**
 * Finds who a bearer secret's hash belongs to, in one indexed query that also reads the tenant's
 * credentials counter: roles, statuses and revocations are as committed when the query ran.
 */
export async function loadCredential(db: Kysely<Database>, hash: string, isApiKey: boolean, now: Date) {
  return isApiKey ? loadApiKey(db, hash) : loadSession(db, hash, now);
}

async function loadApiKey(db: Kysely<Database>, hash: string): Promise<LoadedCredential | null> {
  const key = await db
    .selectFrom('api_keys as k')
    .leftJoin('tenant_versions as v', 'v.tenant_id', 'k.tenant_id')
    .select(['k.tenant_id', 'k.id', 'k.name', 'k.scopes', 'k.last_used_at', 'v.credentials'])
    .where('k.key_hash', '=', hash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!key) return null;
  return {
    credential: {
      tenantId: key.tenant_id,
      actor: { type: 'api_key', id: key.id, label: key.name },
      role: null,
      scopes: key.scopes as Scope[],
      sessionId: null,
    },
    version: Number(key.credentials ?? 0),
    expiresAt: null,
    lastUsedAt: key.last_used_at,
  };
}

async function loadSession(db: Kysely<Database>, hash: string, now: Date): Promise<LoadedCredential | null> {
  const session = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', (join) => join.onRef('u.tenant_id', '=', 's.tenant_id').onRef('u.id', '=', 's.user_id'))
    .leftJoin('tenant_versions as v', 'v.tenant_id', 's.tenant_id')
    .select(['s.tenant_id', 's.id as session_id', 's.expires_at', 'u.id as user_id', 'u.email', 'u.role', 'v.credentials'])
    .where('s.token_hash', '=', hash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('u.status', '=', 'active')
    .executeTakeFirst();
  if (!session) return null;
  return {
    credential: {
      tenantId: session.tenant_id,
      actor: { type: 'user', id: session.user_id, label: session.email },
      role: session.role,
      scopes: [],
      sessionId: session.session_id,
    },
    version: Number(session.credentials ?? 0),
    expiresAt: session.expires_at,
    lastUsedAt: null,
  };
}

/** Marks an API key used (the caller decides how often). */
export async function touchApiKey(db: Kysely<Database>, tenantId: string, keyId: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now })
    .where('tenant_id', '=', tenantId).where('id', '=', keyId).execute();
}
