import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createSession } from '../../src/platform/identity/sessions.js';
import type { Harness, TestTenant } from './harness.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export interface ScimCallOptions {
  body?: unknown;
  /** A raw body, sent as is. */
  payload?: string;
  query?: Record<string, string>;
  contentType?: string;
}

let sequence = 0;
export const scimEmail = (prefix = 'scim') => `${prefix}${(sequence += 1)}-${Date.now()}@acme.test`;

/** A request to `/scim/v2` with the token, the body as `application/scim+json` (as identity providers send it). */
export function scim(h: Harness, token: string | undefined, method: string, path: string, options: ScimCallOptions = {}) {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/scim+json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const payload = options.payload ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return h.app.inject({ method: method as 'GET', url: `/scim/v2${path}`, headers, query: options.query, ...(payload === undefined ? {} : { payload }) });
}

/** The API key an identity provider is given: scope `scim`, made by the tenant's admin through the API. */
export async function scimToken(h: Harness, t: TestTenant): Promise<string> {
  return h.apiKey(t, ['scim']);
}

/** `filter=userName eq "…"`, as Entra ID and Okta look a user up. */
export async function findByUserName(h: Harness, token: string, userName: string) {
  const response = await scim(h, token, 'GET', '/Users', { query: { filter: `userName eq "${userName}"` } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { totalResults: number; Resources: Array<Record<string, any>> };
}

export const patchOf = (...Operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations });

/** A session of the user, as single sign-on would give them one (a SCIM user has no password to log in with). */
export async function sessionOf(h: Harness, tenantId: string, userId: string): Promise<string> {
  const { token } = await createSession(h.db, tenantId, userId, h.clock.now(), h.deps.config.auth.sessionTtlSeconds);
  return token;
}

/** Whether the session token still opens the API. */
export async function sessionWorks(h: Harness, token: string): Promise<boolean> {
  const status = (await h.call('GET', '/api/v1/users/me', { token })).statusCode;
  expect([200, 401]).toContain(status);
  return status === 200;
}

/** A user as the users API shows it. */
export async function apiUser(h: Harness, t: TestTenant, id: string) {
  return h.call('GET', `/api/v1/users/${id}`, { token: t.adminToken });
}

/** A point in the test's time: what happens from here on has a later timestamp than what happened before. */
export function mark(h: Harness): string {
  h.clock.advance(5);
  return h.clock.now().toISOString();
}

/** The tenant's `user.*` audit entries written since `since` (see `mark`), as the audit log API returns them. */
export async function userAuditsSince(h: Harness, t: TestTenant, since: string): Promise<Array<Record<string, any>>> {
  const response = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { limit: 200 } });
  expect(response.statusCode, response.body).toBe(200);
  const { entries } = response.json() as { entries: Array<Record<string, any>> };
  return entries.filter((entry) => String(entry.action).startsWith('user.') && entry.occurred_at >= since);
}

/** A SCIM error body with the status (as a string) and, when given, the scimType. */
export function expectScimError(response: LightMyRequestResponse, status: number, scimType?: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/scim\+json/);
  const body = response.json() as Record<string, unknown>;
  expect(body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status), detail: expect.any(String) });
  if (scimType) expect(body.scimType).toBe(scimType);
  expect(response.body).not.toMatch(/\bat .+\.(ts|js):\d+/);
  return body;
}
