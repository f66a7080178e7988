import type { ErrorResponseJSON, HttpMethod } from 'openapi-typescript-helpers';
import type { paths } from './generated/openapi.js';

type Operation = { [P in keyof paths]: { [M in HttpMethod]: paths[P][M] }[HttpMethod] }[keyof paths];
type ErrorBodyOf<O> = O extends Record<string, unknown> ? ErrorResponseJSON<O> : never;

/** The error body of every operation, as the OpenAPI document describes it: `{error, code, details?}`. */
export type ErrorBody = Extract<ErrorBodyOf<Operation>, { code: unknown }>;
/** The service's machine-readable error codes (docs/conventions.md). */
export type ErrorCode = ErrorBody['code'];
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];

/** The code an answer without the contract's error body (a proxy's page, say) is given, by status. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

/** A non-2xx answer of the service. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    /** The service's sentence (the body's `error`). */
    readonly error: string,
    readonly details: ErrorDetail[] | undefined,
    /** `X-Request-Id` of the answer: quote it when reporting a problem. */
    readonly requestId: string | undefined,
    /** `Retry-After` in seconds, on 429 and 503. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`${status} ${code}: ${error}`);
  }

  static from(response: Response, body: unknown): ApiError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
    const retryAfterSeconds = Number.isFinite(retryAfter) ? retryAfter : undefined;
    if (isErrorBody(body)) {
      return new ApiError(response.status, body.code, body.error, body.details, requestId, retryAfterSeconds);
    }
    const code = CODE_BY_STATUS[response.status] ?? 'internal_error';
    return new ApiError(response.status, code, `HTTP ${response.status} ${response.statusText}`.trim(), undefined, requestId, retryAfterSeconds);
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null
    && typeof (body as { error?: unknown }).error === 'string' && typeof (body as { code?: unknown }).code === 'string';
}
