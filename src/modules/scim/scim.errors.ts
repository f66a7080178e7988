import SCIMMY from 'scimmy';
import { AppError, type ErrorCode } from '../../kernel/errors.js';
import { isStoreUnavailable } from '../../platform/store/store-errors.js';

export const SCIM_ERROR_SCHEMA = SCIMMY.Messages.ErrorResponse.id;

/** The detail keywords of SCIM errors (RFC 7644, section 3.12). */
export type ScimType =
  | 'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget'
  | 'invalidValue' | 'invalidVers' | 'sensitive';

export class ScimError extends Error {
  constructor(readonly status: number, readonly scimType: ScimType | undefined, detail: string) {
    super(detail);
  }
}

export const invalidValue = (detail: string) => new ScimError(400, 'invalidValue', detail);
export const invalidSyntax = (detail: string) => new ScimError(400, 'invalidSyntax', detail);

/** The body every SCIM error has; `status` is a string, as SCIM wants. */
export interface ScimErrorBody {
  schemas: [typeof SCIM_ERROR_SCHEMA];
  status: string;
  scimType?: ScimType;
  detail: string;
}

export interface MappedScimError {
  status: number;
  body: ScimErrorBody;
  retryAfterSeconds?: number;
}

const SCIM_TYPE_OF: Partial<Record<ErrorCode, ScimType>> = {
  validation_error: 'invalidValue',
  email_taken: 'uniqueness',
  conflict: 'uniqueness',
};

/** Turns any failure of a SCIM request into a SCIM error; never a stack trace. */
export function toScimError(error: unknown): MappedScimError {
  if (error instanceof ScimError) return mapped(error.status, error.scimType, error.message);
  if (error instanceof SCIMMY.Types.Error) return mapped(error.status, error.scimType as ScimType, error.message);
  if (error instanceof AppError) {
    return { ...mapped(error.status, SCIM_TYPE_OF[error.code], error.message), retryAfterSeconds: error.options.retryAfterSeconds };
  }
  if (isStoreUnavailable(error)) {
    return { ...mapped(503, undefined, 'The store is unreachable; try again shortly'), retryAfterSeconds: 5 };
  }
  const code = (error as { code?: unknown }).code;
  if (code === '23505') return mapped(409, 'uniqueness', 'A user with this userName already exists');
  // Data exceptions (a NUL in a text, a value out of range): the request's values, not the service.
  if (typeof code === 'string' && (code.startsWith('22') || code === '54000')) {
    return mapped(400, 'invalidValue', 'A value in the request is out of range or malformed');
  }
  return frameworkError(error) ?? mapped(500, undefined, 'An unexpected error occurred; it has been logged');
}

/** What Fastify refuses before the handler: the body's type, size or JSON. */
function frameworkError(error: unknown): MappedScimError | undefined {
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return mapped(415, undefined, 'The body must be JSON (Content-Type: application/scim+json or application/json)');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return mapped(413, undefined, 'The request body is larger than the configured maximum');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return mapped(400, 'invalidSyntax', 'The request body is empty');
  }
  if (statusCode === 400 || error instanceof SyntaxError) return mapped(400, 'invalidSyntax', 'The request body is not valid JSON');
  if (statusCode === 413 || statusCode === 415) return mapped(statusCode, undefined, 'The request body cannot be read');
  return undefined;
}

function mapped(status: number, scimType: ScimType | undefined, detail: string): MappedScimError {
  const body: ScimErrorBody = { schemas: [SCIM_ERROR_SCHEMA], status: String(status), detail };
  if (scimType) body.scimType = scimType;
  return { status, body };
}
