import type { FastifyRequest } from 'fastify';
import pino, { type LoggerOptions } from 'pino';

/** Fields that hold a credential or a detected value wherever a logged object has them. */
const SECRET_FIELDS = ['password', 'token', 'key', 'secret', 'signing_secret', 'client_secret', 'code_verifier', 'auth_token', 'authorization', 'cookie'];

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]),
  'classifications[*].value',
  '*.classifications[*].value',
];

/**
 * Query parameters whose value is a credential (`?token=inv_…` of an invitation link, for one; the
 * authorization `code` and `state` a single sign-on callback carries).
 */
const SECRET_QUERY_NAME = /token|secret|password|passwd|key|auth|session|cookie|signature|credential|^code$|^state$/i;

/**
 * Database errors carry the statement's values: `detail` ("Key (email)=(…)", "Failing row
 * contains (…)"), `where`, `hint`, and the embedded store adds the bound `params` (and `query`,
 * `queryOptions`). Message, code, constraint and stack are enough to find a failure.
 */
const VALUE_CARRYING_ERROR_FIELDS = ['detail', 'where', 'hint', 'internalQuery', 'query', 'params', 'parameters', 'queryOptions'];

/** Fastify's request line (method, url, host, remote address), with secret query values replaced. */
function requestSummary(request: FastifyRequest) {
  return {
    method: request.method,
    url: withoutSecretQueryValues(request.url),
    version: request.headers['accept-version'] as string | undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

function withoutSecretQueryValues(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url.slice(start + 1).split('&').map((pair) => {
    const [name = ''] = new URLSearchParams(pair).keys();
    return SECRET_QUERY_NAME.test(name) ? `${pair.split('=', 1)[0]}=[Redacted]` : pair;
  });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}

function errorSummary(error: Error) {
  const serialized = pino.stdSerializers.err(error);
  withoutValues(serialized);
  return serialized;
}

/** Strips value-carrying fields from a serialized error and from the errors nested in it. */
function withoutValues(serialized: Record<string, unknown>): void {
  for (const field of VALUE_CARRYING_ERROR_FIELDS) delete serialized[field];
  for (const value of Object.values(serialized)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const isSerializedError = typeof item === 'object' && item !== null
        && Object.getPrototypeOf(item) === Object.getPrototypeOf(serialized);
      if (isSerializedError) withoutValues(item as Record<string, unknown>);
    }
  }
}

/** What every logger of the service (the API's and the workers') is built with. */
export const logRedaction = {
  redact: REDACTED_PATHS,
  serializers: { req: requestSummary, err: errorSummary },
} satisfies LoggerOptions;
