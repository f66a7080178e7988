import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Deps } from '../deps.js';
import { ADMIN_ONLY, type Access, type RequestContext } from '../lib/context.js';
import { AppError } from '../lib/errors.js';
import { credentialCacheOf } from '../modules/auth/credential-cache.js';
import { RateLimiter } from './rate-limiter.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set on every route that is not public. */
    ctx: RequestContext;
  }
  interface FastifyContextConfig {
    access?: Access;
  }
}

/**
 * Authenticates every `/api/v1` route that is not public, then applies the one access guard:
 * users pass on their role, API keys on their scopes. Unknown routes fall through to the 404.
 */
export const authenticate = fp(async (app: FastifyInstance, { deps }: { deps: Deps }) => {
  const limiter = new RateLimiter(deps.config.rateLimitPerMinute);
  app.decorateRequest('ctx', null as unknown as RequestContext);

  app.addHook('onRequest', async (request) => {
    if (!request.routeOptions.url?.startsWith('/api/v1/')) return;
    const access = request.routeOptions.config.access ?? ADMIN_ONLY;
    if ('public' in access) return;

    const secret = bearerSecret(request);
    const credential = await credentialCacheOf(deps).resolve(secret);
    if (!credential) throw new AppError('unauthorized', 'The bearer token is unknown, expired or revoked');

    const retryAfter = limiter.hit(credential.actor.id ?? credential.tenantId, Date.now());
    if (retryAfter > 0) {
      throw new AppError('rate_limited', 'Too many requests for this token; slow down', {
        retryAfterSeconds: retryAfter,
      });
    }
    request.ctx = { ...credential, requestId: request.id, ip: request.ip };
    if (!isAllowed(access, request.ctx)) {
      throw new AppError('forbidden', 'Your role or API key scope does not allow this action');
    }
  });
});

function bearerSecret(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw new AppError('unauthorized', 'Missing Authorization header (Bearer token)');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError('unauthorized', 'Malformed Authorization header; expected "Bearer <token>"');
  return match[1]!;
}

function isAllowed(access: { roles: readonly string[]; scopes?: readonly string[] }, ctx: RequestContext): boolean {
  if (ctx.role) return access.roles.includes(ctx.role);
  return (access.scopes ?? []).some((scope) => (ctx.scopes as readonly string[]).includes(scope));
}
