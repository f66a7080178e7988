import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../../../kernel/context.js';
import { AppError } from '../../../kernel/errors.js';

export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitSettings {
  /** Requests per credential and window; 0 turns the limit off. */
  perMinute: number;
  /** Where the requests are counted: PostgreSQL (shared by the replicas) or this process. */
  windows: FastifyRateLimitStore;
}

/** Counts the request against its caller's limit, sets the RateLimit-* headers; throws `rate_limited` past it. */
export type LimitRequest = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** What a request is counted under: its user (all of the user's sessions together) or its API key. */
export function rateLimitKey(ctx: RequestContext): string {
  return `${ctx.actor.type}:${ctx.actor.id ?? ctx.tenantId}`;
}

/**
 * The API's rate limit, with `@fastify/rate-limit` counting in `settings.windows`. It is bound to no
 * route (`global: false`): the authentication hook calls the returned function once it knows who is
 * calling, since the key is the credential. Undefined when the limit is off.
 */
export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings): Promise<LimitRequest | undefined> {
  if (settings.perMinute === 0) return undefined;
  await app.register(rateLimit, {
    global: false,
    max: settings.perMinute,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    enableDraftSpec: true,
    store: handing(settings.windows),
    keyGenerator: (request) => rateLimitKey(request.ctx),
    // The contract's error body, through the one error handler like every other error.
    errorResponseBuilder: (_request, { ttl }) => new AppError('rate_limited', 'Too many requests for this token; slow down', {
      retryAfterSeconds: Math.ceil(ttl / 1000),
    }),
  });
  return app.rateLimit();
}

/** The plugin builds its store with `new`: a constructor that returns an object hands over that object, built per app. */
function handing(windows: FastifyRateLimitStore): FastifyRateLimitStoreCtor {
  return function store() {
    return windows;
  } as unknown as FastifyRateLimitStoreCtor;
}
