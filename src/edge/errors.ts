import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, type ErrorDetail } from '../kernel/errors.js';
import { isStoreUnavailable } from '../platform/store/store-errors.js';
import { storeOutages } from '../platform/store/store-outages.js';
import type { Store } from '../platform/store/store.js';
import { securityHeaders } from './security-headers.js';

interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: ErrorDetail[];
}

// 22P05: a NUL (\u0000) in text bound for a jsonb column (an audit entry's details, for instance).
const BAD_VALUE_CODES = new Set(['22P02', '22003', '22007', '22008', '22001', '22023', '22021', '22P05', '54000']);

/** Turns every failure into the contract's `{error, code, details?}` body; never a stack trace. */
export function registerErrorHandling(app: FastifyInstance, store: Store): void {
  const outages = storeOutages(store, app.log);
  app.addHook('onClose', async () => outages.stop());
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = mapError(error);
    // A store outage is a few warn lines in all (store-outages.ts), not a stack trace per request.
    if (mapped.status >= 500 && !outages.record(error, 'request')) {
      request.log.error({ err: error }, 'request failed');
    }
    if (mapped.retryAfterSeconds !== undefined) reply.header('Retry-After', String(mapped.retryAfterSeconds));
    return sendError(reply, mapped.status, mapped.body);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, { error: `No route for ${request.method} ${request.url.split('?')[0]}`, code: 'not_found' }),
  );
}

/**
 * The longest path parameter the router hands to a route. Every path parameter's schema allows far
 * less (100 characters, or a UUID), so the route's own validation answers a too long one with 400
 * `validation_error` naming the parameter; Fastify's default (100) would answer 414 first.
 */
export const MAX_PARAM_LENGTH = 2048;

/**
 * What the router refuses before any route or hook runs (Fastify's `frameworkErrors`): a path
 * parameter longer still, or one whose percent-encoding is not UTF-8. Both get the contract's body
 * (not Fastify's), and the X-Request-Id and security headers every answer carries.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('X-Request-Id', request.id);
  securityHeaders(request, reply);
  const mapped = mapError(error);
  if (mapped.status >= 500) request.log.error({ err: error }, 'request failed');
  return sendError(reply, mapped.status, mapped.body);
}

function sendError(reply: FastifyReply, status: number, body: ErrorBody) {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

interface Mapped {
  status: number;
  body: ErrorBody;
  retryAfterSeconds?: number;
}

export function mapError(error: FastifyError | Error): Mapped {
  if (error instanceof AppError) {
    const body: ErrorBody = { error: error.message, code: error.code };
    if (error.options.details) body.details = error.options.details;
    return { status: error.status, body, retryAfterSeconds: error.options.retryAfterSeconds };
  }
  const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fastifyError.validation) {
    const details = fastifyError.validation.map((v) => toDetail(fastifyError.validationContext ?? 'body', v));
    const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
    return { status: 400, body: { error: `Invalid request: ${summary}`, code: 'validation_error', details } };
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return clientError(415, 'unsupported_media_type', 'The body must be JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return clientError(413, 'payload_too_large', 'The request body is larger than the configured maximum');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return clientError(400, 'validation_error', 'The request body is empty but Content-Type is application/json');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return paramsError(`is longer than ${MAX_PARAM_LENGTH} characters`);
    case 'FST_ERR_BAD_URL':
      return paramsError('is not valid percent-encoded UTF-8');
  }
  const errorCode = (error as { code?: unknown }).code;
  if (isStoreUnavailable(error)) {
    return { ...clientError(503, 'unavailable', 'The store is unreachable; try again shortly'), retryAfterSeconds: 5 };
  }
  if (errorCode === '23505') return clientError(409, 'conflict', 'A resource with the same unique value already exists');
  if (typeof errorCode === 'string' && BAD_VALUE_CODES.has(errorCode)) {
    return clientError(400, 'validation_error', 'A value in the request is out of range or malformed');
  }
  const status = fastifyError.statusCode;
  if (status === 400 || error instanceof SyntaxError) {
    return clientError(400, 'validation_error', 'The request body is not valid JSON');
  }
  if (status === 413) return clientError(413, 'payload_too_large', 'The request body is too large');
  if (status === 415) return clientError(415, 'unsupported_media_type', 'Unsupported Content-Type');
  if (status === 404) return clientError(404, 'not_found', 'Not found');
  return clientError(500, 'internal_error', 'An unexpected error occurred; it has been logged');
}

function paramsError(message: string): Mapped {
  return { status: 400, body: { error: `Invalid request: a path parameter ${message}`, code: 'validation_error', details: [{ path: 'params', message }] } };
}

function clientError(status: number, code: ErrorCode, message: string): Mapped {
  return { status, body: { error: message, code } };
}

interface AjvError {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

function toDetail(context: string, error: AjvError): ErrorDetail {
  const location = context === 'querystring' ? 'query' : context;
  const segments = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  const path = [location, ...segments].join('.');
  if (error.keyword === 'required') return { path, message: 'is required' };
  if (error.keyword === 'additionalProperties') return { path, message: 'is not an allowed field' };
  if (error.keyword === 'enum') {
    return { path, message: `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}` };
  }
  return { path, message: error.message ?? 'is invalid' };
}
