import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ADMIN_ONLY, type Access, type RequestContext } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { type CredentialCache, CredentialChangedError } from './credential-cache.js';
import { type RateLimitSettings, registerRateLimit } from './rate-limit/rate-limit.js';
import { scopeRequestToTenant } from '../../platform/http/request-scope.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set on every route that is not public. */
    ctx: RequestContext;
  }
  interface FastifyContextConfig {
    access?: Access;
    /**
     * The route writes in a transaction that checks the tenant's credentials counter itself
     * (interaction creates): a cached credential is then not checked again before it, which
     * saves a query per request. A keyed create is checked at once: it may replay without writing.
     */
    credentialCheckedInTransaction?: boolean;
    /** The route never reads nor writes the store, so it never answers 503 (the API document says so). */
    storeFree?: boolean;
  }
}

/**
 * Authenticates every `/api/v1` route that is not public, counts the request against the caller's
 * rate limit, then applies the one access guard: users pass on their role, API keys on their scopes.
 * All of it runs before the body is read. Unknown routes fall through to the 404.
 */
export const authenticate = fp(async (
  app: FastifyInstance, { credentials, rateLimit }: { credentials: CredentialCache; rateLimit: RateLimitSettings },
) => {
  app.decorateRequest('ctx', null as unknown as RequestContext);
  const limit = await registerRateLimit(app, rateLimit);

  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.url?.startsWith('/api/v1/')) return;
    const access = request.routeOptions.config.access ?? ADMIN_ONLY;
    if ('public' in access) return;
    const deferCheck = request.routeOptions.config.credentialCheckedInTransaction === true &&
      request.headers['idempotency-key'] === undefined;
    request.ctx = await caller(credentials, request, { deferCheck });
    // Scoped first: the count's statement then runs on a connection already set to the caller's
    // tenant, as the handler's do, instead of switching it to no tenant and back on every request.
    scopeRequestToTenant(request, request.ctx.tenantId);
    // Counted under the caller, before the guard: a refused request counts too.
    await limit?.(request, reply);
    assertAllowed(access, request.ctx);
  });
});

/**
 * Runs `write` with the caller's context; when its transaction found the caller's cached
 * credential possibly changed, checks the credential now and runs `write` once more.
 */
export async function withCredentialRecheck<T>(
  credentials: CredentialCache, request: FastifyRequest, write: (ctx: RequestContext) => Promise<T>) {
  try {
    return await write(request.ctx);
  } catch (error) {
    if (!(error instanceof CredentialChangedError)) throw error;
    const access = request.routeOptions.config.access ?? ADMIN_ONLY;
    if ('public' in access) throw error;
    request.ctx = await caller(credentials, request, { deferCheck: false });
    scopeRequestToTenant(request, request.ctx.tenantId);
    assertAllowed(access, request.ctx);
    return write(request.ctx);
  }
}

async function caller(credentials: CredentialCache, request: FastifyRequest, options: { deferCheck: boolean }): Promise<RequestContext> {
  const secret = bearerSecret(request);
  const resolved = await credentials.resolve(secret, { deferCheck: options.deferCheck });
  if (!resolved) throw new AppError('unauthorized', 'The bearer token is unknown, expired or revoked');
  const ctx: RequestContext = { ...resolved.credential, requestId: request.id, ip: request.ip };
  if (!resolved.checked) ctx.credentialsVersion = resolved.version;
  return ctx;
}

function assertAllowed(access: Exclude<Access, { public: true }>, ctx: RequestContext): void {
  if (!isAllowed(access, ctx)) throw new AppError('forbidden', 'Your role or API key scope does not allow this action');
}

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
