/** The closed list of error codes, each with its HTTP status. */
export const ERROR_STATUS = {
  validation_error: 400,
  unauthorized: 401,
  sso_required: 401,
  forbidden: 403,
  self_action_forbidden: 403,
  not_found: 404,
  email_taken: 409,
  invalid_state: 409,
  idempotency_conflict: 409,
  conflict: 409,
  invitation_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: { details?: ErrorDetail[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const forbidden = (message = 'Your role does not allow this action') => new AppError('forbidden', message);
export const validationError = (path: string, message: string) =>
  new AppError('validation_error', `Invalid request: ${path} ${message}`, { details: [{ path, message }] });
