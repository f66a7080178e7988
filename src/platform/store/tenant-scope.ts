import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';

/**
 * Which tenants' rows the store lets the current work see: row-level security checks every row
 * of a tenant table against it, under the application's own `where tenant_id = ...`.
 * - `tenants`: exactly these tenants (a request: its caller's; a group commit: the group's).
 * - `all`: every tenant, for work that by nature spans them (a worker finding due work, the
 *   lookup of a presented credential before its tenant is known). Never entered by a request
 *   for its own data.
 * - `owner`: the role that owns the tables, for migrations and maintenance (VACUUM, ANALYZE).
 * Outside any scope, or in a request before authentication, no tenant row is visible.
 */
export type TenantScope =
  | { kind: 'tenants'; tenantIds: readonly string[] }
  | { kind: 'all' }
  | { kind: 'owner' };

/** A request's scope: filled in once the caller is authenticated. */
export interface RequestScope {
  scope?: TenantScope;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function inTenants<T>(tenantIds: readonly string[], work: () => Promise<T>): Promise<T> {
  return storage.run({ scope: { kind: 'tenants', tenantIds } }, work);
}

export function acrossTenants<T>(work: () => Promise<T>): Promise<T> {
  return storage.run({ scope: { kind: 'all' } }, work);
}

export function asTableOwner<T>(work: () => Promise<T>): Promise<T> {
  return storage.run({ scope: { kind: 'owner' } }, work);
}

export function currentScope(): TenantScope | undefined {
  return storage.getStore()?.scope;
}

/**
 * An empty scope for a request, and the function that runs the request's next step in it. Body
 * parsing continues from the socket's own async context, so the hook after it must run its next
 * step through `run` again (the way @fastify/request-context keeps its context).
 */
export function openRequestScope(): { scope: RequestScope; run: (next: () => void) => void } {
  const scope: RequestScope = {};
  const resource = storage.run(scope, () => new AsyncResource('request-scope'));
  return { scope, run: (next) => resource.runInAsyncScope(next) };
}

/** The scope as the store's settings carry it: a comma-separated tenant list, `*`, or empty. */
export function scopeSetting(scope: TenantScope | undefined): { tenants: string; owner: boolean } {
  if (!scope) return { tenants: '', owner: false };
  if (scope.kind === 'tenants') return { tenants: [...scope.tenantIds].sort().join(','), owner: false };
  return { tenants: '*', owner: scope.kind === 'owner' };
}

export const ALL_TENANTS: TenantScope = Object.freeze({ kind: 'all' });
export const TABLE_OWNER: TenantScope = Object.freeze({ kind: 'owner' });
export const onlyTenants = (tenantIds: readonly string[]): TenantScope => ({ kind: 'tenants', tenantIds });
