import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CredentialCache } from '../auth/credential-cache.js';
import type { LimitRequest } from '../auth/rate-limit/rate-limit.js';
import { scopeRequestToTenant } from '../../platform/http/request-scope.js';
import { ScimError } from './scim.errors.js';

/**
 * Authenticates a SCIM request as the API's hook does (the same credentials, cache and rate
 * limit), then admits only API keys with the scope `scim`: a user's session is refused, whatever
 * the user's role. Runs before the body is read.
 */
export function scimAuthentication(credentials: CredentialCache, limit: LimitRequest | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const resolved = await credentials.resolve(bearerSecret(request));
    if (!resolved) throw new ScimError(401, undefined, 'The bearer token is unknown, expired or revoked');
    request.ctx = { ...resolved.credential, requestId: request.id, ip: request.ip };
    scopeRequestToTenant(request, request.ctx.tenantId);
    // Counted under the caller, before the scope check, as the API counts: a refused request counts too.
    await limit?.(request, reply);
    if (request.ctx.actor.type !== 'api_key') {
      throw new ScimError(403, undefined, 'SCIM takes an API key with the scope scim, not a user session');
    }
    if (!request.ctx.scopes.includes('scim')) throw new ScimError(403, undefined, 'This API key does not have the scope scim');
  };
}

function bearerSecret(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw new ScimError(401, undefined, 'Missing Authorization header (Bearer token)');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ScimError(401, undefined, 'Malformed Authorization header; expected "Bearer <token>"');
  return match[1]!;
}
