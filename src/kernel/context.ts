import type { Role } from './tables/database.js';

export const SCOPES = ['interactions:write', 'interactions:read', 'scim'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Actor {
  type: 'user' | 'api_key' | 'system';
  id: string | null;
  /** What the audit log shows: the user's email or the key's name. */
  label: string | null;
}

/** Who is calling, for which tenant, with what rights: put on every authenticated request. */
export interface RequestContext {
  tenantId: string;
  actor: Actor;
  /** The user's role, looked up on every request; null for API keys. */
  role: Role | null;
  /** The API key's scopes; empty for users. */
  scopes: readonly Scope[];
  /** The session in use, so logout and "keep this session" can name it. */
  sessionId: string | null;
  requestId: string | null;
  ip: string | null;
  /**
   * Set when the caller's cached credential was not checked against the tenant's credentials
   * counter yet: the counter it was valid at, for the request's own transaction to compare.
   */
  credentialsVersion?: number;
}

/** Which callers a route admits. Routes that say nothing admit admins only. */
export type Access = { public: true } | { roles: readonly Role[]; scopes?: readonly Scope[] };

export const ADMIN_ONLY: Access = { roles: ['admin'] };

export function systemContext(tenantId: string): RequestContext {
  return {
    tenantId,
    actor: { type: 'system', id: null, label: 'system' },
    role: null,
    scopes: [],
    sessionId: null,
    requestId: null,
    ip: null,
  };
}

/** The context of a user acting on their own account before they hold a token (login, accepting an invitation). */
export function userContext(
  user: { tenant_id: string; id: string; email: string; role: Role },
  meta: { ip: string; requestId: string },
): RequestContext {
  return {
    tenantId: user.tenant_id,
    actor: { type: 'user', id: user.id, label: user.email },
    role: user.role,
    scopes: [],
    sessionId: null,
    requestId: meta.requestId,
    ip: meta.ip,
  };
}
