import type { FastifyDynamicSwaggerOptions, SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import type { FastifySchema, RouteOptions } from 'fastify';
import { ADMIN_ONLY, type Access } from '../../kernel/context.js';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { ERROR_STATUS, type ErrorCode } from '../../kernel/errors.js';
import { errorResponses } from '../../kernel/schemas.js';
import { SERVICE_VERSION } from '../../kernel/version.js';
import { eventWebhooksSection } from '../event-catalog/event-webhooks.openapi.js';

/**
 * What the API document says beyond the route schemas, and the two steps that complete it:
 * `completeRoute` adds, per route, the error statuses that follow from what the route is (who may
 * call it, what it validates, whether it touches the store); `completeDocument` then replaces every
 * error response by a shared one, adds the response headers and copies the components' examples
 * to the operations. See docs/openapi.md.
 */

const SESSION = 'sessionToken';
const API_KEY = 'apiKey';

// The event envelopes: the top-level `webhooks` section and the schemas it names.
const events = eventWebhooksSection();

export const DOCUMENT_BASE: NonNullable<FastifyDynamicSwaggerOptions['openapi']> = {
  openapi: '3.1.0',
  info: {
    title: 'Usage-Governance Service API',
    version: SERVICE_VERSION,
    description: 'Records AI interactions (hashes and risk signals only), evaluates policies, raises alerts and '
      + 'notifies by signed webhooks. Every error has the body `Error`; every response carries `X-Request-Id`; every answer '
      + 'to an authenticated request carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` while the rate limit is on.',
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  // Relative: the API is where this document is served from, whatever the deployment's host.
  servers: [{ url: '/', description: 'The host serving this document' }],
  tags: [
    { name: 'auth', description: 'Sessions: log in and out, accept an invitation.' },
    { name: 'sso', description: "Single sign-on with the organization's OpenID Connect provider: its setting, and the sign-in flow." },
    { name: 'interactions', description: 'AI interactions reported by extensions and proxies: a content hash and risk signals, never the content.' },
    { name: 'policies', description: 'Rules that judge every new interaction; a match raises an alert and may block or coach.' },
    { name: 'platforms', description: 'The catalog of AI platforms, and whether the organization sanctions, tolerates or blocks each.' },
    { name: 'alerts', description: 'Raised by policy matches; administrators resolve them.' },
    { name: 'users', description: "The organization's users, their roles and invitations, and the caller's own profile." },
    { name: 'api-keys', description: 'Credentials of machine clients, with scopes.' },
    { name: 'webhooks', description: 'Receivers of signed event notifications, their tests and delivery history.' },
    { name: 'stats', description: 'Dashboard counts.' },
    { name: 'tenants', description: 'The organization itself.' },
    { name: 'audit', description: 'Who changed what, and every login.' },
    { name: 'governance', description: "Data protection: erasure of a person's interactions, with receipts." },
    { name: 'operations', description: 'Probes and version, for orchestrators and monitoring; no credentials.' },
  ],
  components: {
    schemas: events.schemas,
    securitySchemes: {
      [SESSION]: {
        type: 'http', scheme: 'bearer',
        description: 'A session token (prefix `ugt_`) from `login` or `acceptInvitation`, sent as '
          + '`Authorization: Bearer <token>`. Users act with their role: `admin` or `viewer`.',
      },
      [API_KEY]: {
        type: 'http', scheme: 'bearer',
        description: 'An API key (prefix `ugk_`) from `createApiKey`, sent as `Authorization: Bearer <key>`. '
          + 'It may call only the operations its scopes allow (interactions). The scope `scim` opens SCIM 2.0 '
          + 'provisioning of users at `/scim/v2` instead, which this document does not describe (it describes itself '
          + 'at `/scim/v2/ServiceProviderConfig` and `/scim/v2/Schemas`).',
      },
    },
  },
  security: [{ [SESSION]: [] }],
  webhooks: events.webhooks,
};

// ---- Per route -------------------------------------------------------------------------------

type Schema = Record<string, unknown> & { response?: Record<string, unknown>; hide?: boolean; description?: string };

/** Methods whose requests may carry a body: the server reads one even where the route takes none. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The error statuses a route answers by what it is, beside those its schema lists itself. */
export function standardErrorStatuses(route: Pick<RouteOptions, 'config' | 'method'>, schema: Schema): number[] {
  const access = accessOf(route);
  const statuses = new Set<number>();
  if (!('public' in access)) [401, 403, 429].forEach((s) => statuses.add(s));
  // A body sent where none is taken is still read (and then ignored): it can be malformed, too large or not JSON.
  const methods = [route.method].flat();
  if (schema.body || methods.some((m) => BODY_METHODS.has(String(m).toUpperCase()))) [400, 413, 415].forEach((s) => statuses.add(s));
  if (schema.querystring || schema.params || schema.headers) statuses.add(400);
  if (schema.params) statuses.add(404);
  if (!routeConfig(route).storeFree) statuses.add(503);
  return [...statuses];
}

export const completeRoute: SwaggerTransform = ({ schema, url, route }) => {
  const own = schema as Schema | undefined;
  if (!own || own.hide) return { schema, url };
  const access = accessOf(route);
  const response = { ...errorResponses(...standardErrorStatuses(route, own)), ...own.response };
  return {
    schema: {
      ...own,
      response: Object.fromEntries(Object.entries(response).sort(([a], [b]) => a.localeCompare(b))),
      security: securityOf(access),
      description: [own.description, accessNote(access)].filter(Boolean).join('\n\n'),
    } as FastifySchema,
    url,
  };
};

function routeConfig(route: Pick<RouteOptions, 'config'>): { access?: Access; storeFree?: boolean } {
  return (route.config ?? {}) as { access?: Access; storeFree?: boolean };
}

function accessOf(route: Pick<RouteOptions, 'config'>): Access {
  return routeConfig(route).access ?? ADMIN_ONLY;
}

function securityOf(access: Access): Record<string, string[]>[] {
  if ('public' in access) return [];
  return access.scopes?.length ? [{ [SESSION]: [] }, { [API_KEY]: [] }] : [{ [SESSION]: [] }];
}

function accessNote(access: Access): string {
  if ('public' in access) return 'Access: public, no credentials.';
  const roles = `users with the role ${access.roles.map((r) => `\`${r}\``).join(' or ')}`;
  if (!access.scopes?.length) return `Access: ${roles}; API keys cannot call it.`;
  return `Access: ${roles}; API keys with the scope ${access.scopes.map((s) => `\`${s}\``).join(' or ')}.`;
}

// ---- Whole document --------------------------------------------------------------------------

const HEADERS = {
  'X-Request-Id': { description: 'The id of the request (the one sent, or a new UUID): quote it when reporting a problem.',
    schema: { type: 'string', examples: [EXAMPLE_IDS.requestId] } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0, examples: [5] } },
  'X-Total-Count': { description: 'Items matching the filters, over all pages.', schema: { type: 'integer', minimum: 0, examples: [120] } },
  'X-Page': { description: 'The number of this page (1-based; with a cursor, where the walk is).', schema: { type: 'integer', minimum: 1, examples: [1] } },
  'X-Per-Page': { description: 'Items per page (`limit`).', schema: { type: 'integer', minimum: 1, examples: [50] } },
  'X-Total-Pages': { description: 'Pages in all at this page size.', schema: { type: 'integer', minimum: 0, examples: [3] } },
  Link: { description: '`<url>; rel="next"`: the next page, by cursor; absent on the last page.',
    schema: { type: 'string', examples: ['</api/v1/alerts?limit=50&cursor=eyJrIjoiMjAyNi0wMy0wMiJ9>; rel="next"'] } },
  'Idempotent-Replayed': { description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] } },
  'RateLimit-Limit': { description: 'Requests allowed per one-minute window to the credential (the user, all sessions together, or the API key), '
    + 'on all replicas together. On every answer to an authenticated request while the rate limit is on.',
  schema: { type: 'integer', minimum: 1, examples: [60000] } },
  'RateLimit-Remaining': { description: 'Requests the credential has left in the current window.', schema: { type: 'integer', minimum: 0, examples: [59874] } },
  'RateLimit-Reset': { description: 'Seconds until the current window ends and the count starts again.',
    schema: { type: 'integer', minimum: 0, examples: [42] } },
} as const;
type HeaderName = keyof typeof HEADERS;
const PAGE_HEADERS: HeaderName[] = ['X-Total-Count', 'X-Page', 'X-Per-Page', 'X-Total-Pages', 'Link'];
const RATE_LIMIT_HEADERS: HeaderName[] = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/** The shared error responses, by status: their names, and a sample body for each code of the status. */
const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'The request is invalid: `details` says which field and why.' },
  401: { name: 'Unauthorized', description: 'No bearer token, or one that is unknown, expired or revoked.' },
  403: { name: 'Forbidden', description: "The caller's role or API key scope does not allow this, or the action is one nobody may do to themselves." },
  404: { name: 'NotFound', description: "No such resource in the caller's tenant." },
  409: { name: 'Conflict', description: 'The resource is not in a state that allows this, or the value is taken.' },
  410: { name: 'Gone', description: 'The invitation has expired; ask for a new one.' },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than the configured maximum (BODY_LIMIT_BYTES).' },
  415: { name: 'UnsupportedMediaType', description: 'The body must be JSON (`Content-Type: application/json`).' },
  429: { name: 'TooManyRequests', description: 'Too many requests for this credential (or login attempts); wait `Retry-After` seconds.' },
  500: { name: 'InternalError', description: 'An unexpected error; it has been logged with the request id.' },
  503: { name: 'ServiceUnavailable', description: 'The store is unreachable or the service is shutting down; retry after `Retry-After` seconds.' },
};

const SAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  validation_error: 'Invalid request: body.risk_score must be <= 1',
  unauthorized: 'The bearer token is unknown, expired or revoked',
  forbidden: 'Your role or API key scope does not allow this action',
  self_action_forbidden: 'You cannot disable or delete yourself',
  not_found: 'Policy not found',
  email_taken: 'A user with this email already exists',
  invalid_state: 'The alert is already resolved',
  idempotency_conflict: 'This Idempotency-Key was used with a different request',
  conflict: 'A resource with the same unique value already exists',
  invitation_expired: 'The invitation has expired',
  payload_too_large: 'The request body is larger than the configured maximum',
  unsupported_media_type: 'The body must be JSON (Content-Type: application/json)',
  rate_limited: 'Too many requests for this token; slow down',
  internal_error: 'An unexpected error occurred; it has been logged',
  unavailable: 'The store is unreachable; try again shortly',
};

const ERROR_REF = '#/components/schemas/Error';
const headerRef = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>> & { schemas: Record<string, { examples?: unknown[] }> };
}
interface Operation {
  security?: unknown[];
  parameters?: { in?: string; name?: string; schema?: unknown; description?: string; required?: boolean; $ref?: string }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Response>;
}
interface Response { $ref?: string; description?: string; headers?: Record<string, unknown>; content?: Record<string, Media> }
interface Media { schema?: { $ref?: string; type?: string; items?: { $ref?: string } }; example?: unknown }

export const completeDocument: SwaggerTransformObject = (documentObject) => {
  if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
  const doc = documentObject.openapiObject as unknown as OpenApi;
  const used = { headers: new Set<HeaderName>(), responses: new Set<number>(), idempotencyKey: undefined as unknown };
  for (const pathItem of Object.values(doc.paths)) {
    for (const operation of Object.values(pathItem)) completeOperation(doc, operation, used);
  }
  doc.components.headers = Object.fromEntries([...used.headers].sort().map((name) => [name, HEADERS[name]]));
  doc.components.responses = Object.fromEntries([...used.responses].sort().map((status) => [
    ERROR_RESPONSES[status]!.name, errorResponse(status),
  ]));
  if (used.idempotencyKey) doc.components.parameters = { IdempotencyKey: used.idempotencyKey };
  return documentObject.openapiObject;
};

function completeOperation(doc: OpenApi, operation: Operation, used: { headers: Set<HeaderName>; responses: Set<number>; idempotencyKey: unknown }) {
  // A parameter with a default (`limit`) may be left out: the default applies. TypeBox marks it required.
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'query' && (parameter.schema as { default?: unknown } | undefined)?.default !== undefined) parameter.required = false;
  }
  const idempotent = useIdempotencyKeyParameter(operation, used);
  const paginated = operation.parameters?.some((p) => p.in === 'query' && p.name === 'cursor') ?? false;
  const authenticated = (operation.security?.length ?? 0) > 0;
  for (const [code, response] of Object.entries(operation.responses)) {
    const status = Number(code);
    if (status >= 400 && response.content?.['application/json']?.schema?.$ref === ERROR_REF) {
      if (!ERROR_RESPONSES[status]) throw new Error(`No shared error response for status ${status}`);
      used.responses.add(status);
      errorHeaders(status).forEach((name) => used.headers.add(name));
      operation.responses[code] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` };
      continue;
    }
    const names: HeaderName[] = ['X-Request-Id'];
    if (status === 429 || status === 503) names.push('Retry-After');
    if (authenticated) names.push(...RATE_LIMIT_HEADERS);
    if (status < 300 && paginated) names.push(...PAGE_HEADERS);
    if (status < 300 && idempotent) names.push('Idempotent-Replayed');
    names.forEach((name) => used.headers.add(name));
    response.headers = { ...response.headers, ...Object.fromEntries(names.map((name) => [name, headerRef(name)])) };
    if (status < 300) addExamples(doc, response.content);
  }
  addExamples(doc, operation.requestBody?.content);
}

/** `Idempotency-Key` is one parameter defined once, written the way clients send it. */
function useIdempotencyKeyParameter(operation: Operation, used: { idempotencyKey: unknown }): boolean {
  const index = operation.parameters?.findIndex((p) => p.in === 'header' && p.name === 'idempotency-key') ?? -1;
  if (index < 0) return false;
  const parameter = operation.parameters![index]!;
  used.idempotencyKey = { ...parameter, name: 'Idempotency-Key', example: 'order-7f3c-2026-03-02T09:15:27Z' };
  operation.parameters![index] = { $ref: '#/components/parameters/IdempotencyKey' };
  return true;
}

/** A media of an operation shows its component's example (an array of components: one item). */
function addExamples(doc: OpenApi, content: Record<string, Media> | undefined): void {
  const media = content?.['application/json'];
  if (!media?.schema || media.example !== undefined) return;
  const exampleOf = (ref: string | undefined) => (ref ? doc.components.schemas[ref.split('/').pop()!]?.examples?.[0] : undefined);
  const example = media.schema.type === 'array' ? exampleOf(media.schema.items?.$ref) : exampleOf(media.schema.$ref);
  if (example === undefined) return;
  media.example = media.schema.type === 'array' ? [example] : example;
}

/**
 * The headers of a shared error response. The RateLimit-* headers come with every error of an
 * authenticated request, counted before anything else can fail; a 401 names no credential to count.
 */
function errorHeaders(status: number): HeaderName[] {
  const names: HeaderName[] = ['X-Request-Id'];
  if (status === 429 || status === 503) names.push('Retry-After');
  if (status !== 401) names.push(...RATE_LIMIT_HEADERS);
  return names;
}

function errorResponse(status: number) {
  const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);
  const headers = Object.fromEntries(errorHeaders(status).map((name) => [name, headerRef(name)]));
  const sample = (code: ErrorCode) => ({
    error: SAMPLE_MESSAGES[code] ?? code,
    code,
    ...(code === 'validation_error' ? { details: [{ path: 'body.risk_score', message: 'must be <= 1' }] } : {}),
  });
  return {
    description: ERROR_RESPONSES[status]!.description,
    headers,
    content: {
      'application/json': {
        schema: { $ref: ERROR_REF },
        examples: Object.fromEntries(codes.map((code) => [code, { summary: `code \`${code}\``, value: sample(code) }])),
      },
    },
  };
}
