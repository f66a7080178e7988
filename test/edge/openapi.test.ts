import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/kernel/errors.js';
import { eventWebhooksSection } from '../../src/edge/event-catalog/event-webhooks.openapi.js';
import { COMPONENT_SCHEMAS } from '../../src/edge/openapi/components.js';
import { Harness } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** The operation ids the SDK is written against: method, path, id. */
const CONTRACT = `
POST /api/v1/auth/login login
POST /api/v1/auth/logout logout
POST /api/v1/auth/accept-invite acceptInvitation
GET /healthz getHealth
GET /readyz getReadiness
GET /api/v1/version getVersion
POST /api/v1/interactions createInteraction
POST /api/v1/interactions/batch createInteractionsBatch
GET /api/v1/interactions listInteractions
GET /api/v1/interactions/search searchInteractions
POST /api/v1/signals/lookup lookupSignal
GET /api/v1/interactions/{interaction_id} getInteraction
DELETE /api/v1/interactions/{interaction_id} deleteInteraction
GET /api/v1/policies listPolicies
POST /api/v1/policies createPolicy
GET /api/v1/policies/{policy_id} getPolicy
PUT /api/v1/policies/{policy_id} updatePolicy
DELETE /api/v1/policies/{policy_id} deletePolicy
POST /api/v1/policies/{policy_id}/enable enablePolicy
POST /api/v1/policies/{policy_id}/disable disablePolicy
GET /api/v1/alerts listAlerts
GET /api/v1/alerts/{alert_id} getAlert
POST /api/v1/alerts/{alert_id}/resolve resolveAlert
GET /api/v1/users listUsers
POST /api/v1/users/invite inviteUser
GET /api/v1/users/{user_id} getUser
PUT /api/v1/users/{user_id} updateUser
DELETE /api/v1/users/{user_id} deleteUser
POST /api/v1/users/{user_id}/resend-invitation resendInvitation
POST /api/v1/users/{user_id}/reset-password resetUserPassword
PATCH /api/v1/users/{user_id}/status setUserStatus
GET /api/v1/users/me getCurrentUser
PUT /api/v1/users/me updateCurrentUser
GET /api/v1/api-keys listApiKeys
POST /api/v1/api-keys createApiKey
DELETE /api/v1/api-keys/{key_id} revokeApiKey
GET /api/v1/webhooks listWebhooks
POST /api/v1/webhooks createWebhook
GET /api/v1/webhooks/{webhook_id} getWebhook
PUT /api/v1/webhooks/{webhook_id} updateWebhook
DELETE /api/v1/webhooks/{webhook_id} deleteWebhook
POST /api/v1/webhooks/{webhook_id}/test testWebhook
GET /api/v1/webhooks/{webhook_id}/deliveries listWebhookDeliveries
POST /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver redeliverWebhookDelivery
POST /api/v1/webhooks/{webhook_id}/rotate-secret rotateWebhookSecret
GET /api/v1/stats getStats
GET /api/v1/tenant getTenant
GET /api/v1/audit-log listAuditLog
`.trim().split('\n').map((line) => line.split(' ') as [string, string, string]);

/** Routes left out of the document on purpose (docs/openapi.md). */
// `/` and `/*` are the console's pages (or a redirect to the reference page), `/assets/` its files.
// SCIM describes itself (/scim/v2/ServiceProviderConfig, /scim/v2/Schemas; docs/scim.md).
const UNDOCUMENTED = [/^\/$/, /^\/\*$/, /^\/assets\//, /^\/metrics$/, /^\/api\/v1\/openapi\.json$/, /^\/docs(\/|$)/, /^\/scim\/v2\//];
const PUBLIC = new Set(['login', 'acceptInvitation', 'getHealth', 'getReadiness', 'getVersion', 'startSso', 'ssoCallback', 'exchangeSsoCode']);
/** Browser navigations of single sign-on: they answer with a redirect. */
const REDIRECTS = new Set(['startSso', 'ssoCallback']);
const STORE_FREE = new Set(['getHealth', 'getVersion']);

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: { $ref?: string; in?: string; name?: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> };
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, unknown>; example?: unknown }> }>;
}
type Document = {
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  security: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Record<string, unknown> & { description?: string; examples?: unknown[] }>;
    responses: Record<string, { headers: Record<string, unknown>; content: Record<string, { schema: { $ref: string } }> }>;
    headers: Record<string, unknown>;
    parameters: Record<string, { name: string; in: string }>;
    securitySchemes: Record<string, { type: string; scheme: string; description: string }>;
  };
};

/** Every route Fastify serves, as `METHOD /path` with OpenAPI-style `{params}`, read from its route tree. */
function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = path;
    for (const method of match[3]?.split(', ') ?? []) {
      if (method !== 'HEAD') routes.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return routes;
}

function operationsOf(document: Document): [string, string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => [method.toUpperCase(), path, operation] as [string, string, Operation]));
}

/** The response as a client sees it: a shared response is resolved. */
function resolved(document: Document, response: Operation['responses'][string]) {
  if (!response.$ref) return response;
  return document.components.responses[response.$ref.replace('#/components/responses/', '')]!;
}

function countSchemasLike(value: unknown, isIt: (schema: Record<string, unknown>) => boolean): number {
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + countSchemasLike(item, isIt), 0);
  if (value === null || typeof value !== 'object') return 0;
  const object = value as Record<string, unknown>;
  return (isIt(object) ? 1 : 0) + Object.values(object).reduce((n: number, item) => n + countSchemasLike(item, isIt), 0);
}

describe.each(STORES)('OpenAPI document [%s]', (kind) => {
  let h: Harness;
  let document: Document;
  let operations: [string, string, Operation][];
  beforeAll(async () => {
    h = await Harness.start(kind);
    const response = await h.call('GET', '/api/v1/openapi.json');
    expect(response.statusCode).toBe(200);
    document = response.json();
    operations = operationsOf(document);
  });
  afterAll(async () => h.close());

  it('documents every route Fastify serves, each with a unique camelCase operationId', () => {
    const documented = new Set(operations.map(([method, path]) => `${method} ${path}`));
    const routes = registeredRoutes(h.app).filter((route) => !UNDOCUMENTED.some((re) => re.test(route.split(' ')[1]!)));
    expect(routes.length).toBeGreaterThanOrEqual(CONTRACT.length);
    expect(routes.filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !routes.includes(route))).toEqual([]);

    const ids = operations.map(([, , operation]) => operation.operationId);
    expect(ids.filter((id) => !id || !/^[a-z][a-zA-Z]+$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps the operationIds the SDK is written against', () => {
    for (const [method, path, id] of CONTRACT) {
      expect({ method, path, id: document.paths[path]?.[method.toLowerCase()]?.operationId }).toEqual({ method, path, id });
    }
  });

  it('lists every status a route can answer', () => {
    const missing: string[] = [];
    const expectStatuses = (id: string, operation: Operation, statuses: number[]) => {
      for (const status of statuses) if (!operation.responses[status]) missing.push(`${id} ${status}`);
    };
    for (const [method, path, operation] of operations) {
      const id = operation.operationId!;
      if (!PUBLIC.has(id)) expectStatuses(id, operation, [401, 403, 429]);
      // A body is read whenever one is sent, even to an operation that takes none.
      if (operation.requestBody || method !== 'GET') expectStatuses(id, operation, [400, 413, 415]);
      if (operation.parameters?.length) expectStatuses(id, operation, [400]);
      if (path.includes('{')) expectStatuses(id, operation, [404]);
      if (!STORE_FREE.has(id)) expectStatuses(id, operation, [503]);
      const success = REDIRECTS.has(id) ? '3' : '2';
      expect(Object.keys(operation.responses).some((status) => status.startsWith(success)), id).toBe(true);
    }
    expectStatuses('login', document.paths['/api/v1/auth/login']!.post!, [401, 429]);
    expectStatuses('acceptInvitation', document.paths['/api/v1/auth/accept-invite']!.post!, [404, 410]);
    expectStatuses('inviteUser', document.paths['/api/v1/users/invite']!.post!, [409]);
    expectStatuses('createInteraction', document.paths['/api/v1/interactions']!.post!, [409]);
    expect(missing).toEqual([]);
    expect(document.paths['/healthz']!.get!.responses[503]).toBeUndefined();
  });

  it('requires no query parameter that has a default (limit): a client may leave it out', () => {
    const required = operations.flatMap(([, , operation]) => (operation.parameters ?? [])
      .filter((p) => p.in === 'query' && p.required).map((p) => `${operation.operationId} ${p.name}`));
    expect(required).toEqual(['searchInteractions content_hash']);
  });

  it('sends the response headers: request id everywhere, Retry-After, rate limit, pagination and idempotency where they apply', () => {
    const rateLimitHeaders = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
    for (const [, , operation] of operations) {
      const id = operation.operationId!;
      const paginated = operation.parameters?.some((p) => p.name === 'cursor') ?? false;
      const authenticated = (operation.security?.length ?? 0) > 0;
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = Object.keys(resolved(document, response).headers ?? {});
        expect(headers, `${id} ${status}`).toContain('X-Request-Id');
        if (status === '429' || status === '503') expect(headers, `${id} ${status}`).toContain('Retry-After');
        if (authenticated && status !== '401') expect(headers, `${id} ${status}`).toEqual(expect.arrayContaining(rateLimitHeaders));
        if (!authenticated && status.startsWith('2')) expect(headers, `${id} ${status}`).not.toContain('RateLimit-Limit');
        if (status.startsWith('2') && paginated) {
          expect(headers, id).toEqual(expect.arrayContaining(['X-Total-Count', 'X-Page', 'X-Per-Page', 'X-Total-Pages', 'Link']));
        }
      }
    }
    const lists = operations.filter(([, , op]) => op.parameters?.some((p) => p.name === 'cursor')).map(([, , op]) => op.operationId);
    expect(lists.sort()).toEqual(['listAlerts', 'listApiKeys', 'listAuditLog', 'listInteractions', 'listPeopleAtRisk', 'listPolicies',
      'listUsers', 'listWebhookDeliveries', 'listWebhooks']);

    for (const path of ['/api/v1/interactions', '/api/v1/interactions/batch']) {
      const create = document.paths[path]!.post!;
      expect(create.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      const success = Object.entries(create.responses).find(([status]) => status.startsWith('2'))![1];
      expect(Object.keys(success.headers!)).toContain('Idempotent-Replayed');
    }
    expect(document.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
    for (const name of Object.keys(document.components.headers)) {
      expect(JSON.stringify(document.paths)).toContain(`#/components/headers/${name}`);
    }
  });

  it('defines the error body once, as `Error` with the closed list of codes, and refers to it', () => {
    const errorLike = (schema: Record<string, unknown>) => {
      const properties = schema.properties as Record<string, unknown> | undefined;
      return properties !== undefined && 'code' in properties && 'error' in properties;
    };
    expect(countSchemasLike(document, errorLike)).toBe(1);
    const error = document.components.schemas.Error!;
    expect((error.properties as { code: { enum: string[] } }).code.enum.sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    for (const [status, response] of Object.entries(document.components.responses)) {
      expect(response.content['application/json']!.schema, status).toEqual({ $ref: '#/components/schemas/Error' });
    }
    for (const [, , operation] of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) >= 400 && operation.operationId !== 'getReadiness') {
          expect(response.$ref, `${operation.operationId} ${status}`).toMatch(/^#\/components\/responses\//);
        }
      }
    }
  });

  it('names every body by a component schema, each used, described and with an example that matches it', () => {
    const isReference = (schema: Record<string, unknown>) =>
      typeof schema.$ref === 'string' || (schema.type === 'array' && typeof (schema.items as { $ref?: unknown })?.$ref === 'string');
    for (const [, , operation] of operations) {
      // JSON bodies; files (the exports' CSV and NDJSON) are strings.
      const media = [operation.requestBody?.content ?? {}, ...Object.values(operation.responses).map((response) => response.content ?? {})]
        .flatMap((content) => Object.entries(content)).filter(([type]) => type === 'application/json').map(([, value]) => value);
      for (const { schema } of media) expect(isReference(schema), operation.operationId).toBe(true);
    }
    const text = JSON.stringify(document);
    const ajv = addFormats(new Ajv({ strict: false })).addSchema([...COMPONENT_SCHEMAS]);
    // The route components, and the event envelopes of the webhooks section (test/edge/event-types.test.ts checks those).
    const eventSchemas = Object.keys(eventWebhooksSection().schemas);
    expect(Object.keys(document.components.schemas).sort()).toEqual([...COMPONENT_SCHEMAS.map((s) => s.$id), ...eventSchemas].sort());
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      if (eventSchemas.includes(name)) continue;
      expect(text, name).toContain(`"#/components/schemas/${name}"`);
      expect(schema.description, name).toBeTruthy();
      expect(schema.examples, name).toHaveLength(1);
      const valid = ajv.validate({ $ref: name }, schema.examples![0]);
      expect({ name, errors: ajv.errors ?? null, valid }).toEqual({ name, errors: null, valid: true });
    }
    for (const name of ['Interaction', 'InteractionCreate', 'InteractionList', 'Policy', 'PolicyCreate', 'Alert', 'User',
      'ApiKey', 'Webhook', 'WebhookDelivery', 'Stats', 'Error']) {
      expect(document.components.schemas[name], name).toBeDefined();
    }
  });

  it('gives each operation a summary, a description, a tag that is described and an example of its bodies', () => {
    const tags = new Map(document.tags.map((tag) => [tag.name, tag.description]));
    for (const [, , operation] of operations) {
      const id = operation.operationId!;
      expect(operation.summary, id).toBeTruthy();
      expect(operation.description, id).toMatch(/Access: /);
      for (const tag of (operation as { tags?: string[] }).tags ?? []) expect(tags.get(tag), `${id} ${tag}`).toBeTruthy();
      const bodies = [
        ...Object.values(operation.requestBody?.content ?? {}),
        ...Object.entries(operation.responses).filter(([s]) => s.startsWith('2')).flatMap(([, r]) => Object.values(r.content ?? {})),
      ];
      for (const media of bodies) expect(media.example, id).toBeDefined();
    }
  });

  it('has a server and two bearer schemes; public operations need no credentials, API keys only where scopes allow', () => {
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    const schemes = document.components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['apiKey', 'sessionToken']);
    for (const scheme of Object.values(schemes)) {
      expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer', description: expect.stringMatching(/Bearer/) });
    }
    expect(schemes.sessionToken!.description).toContain('ugt_');
    expect(schemes.apiKey!.description).toContain('ugk_');
    for (const [, , operation] of operations) {
      const id = operation.operationId!;
      if (PUBLIC.has(id)) expect(operation.security, id).toEqual([]);
      else expect(operation.security, id).toContainEqual({ sessionToken: [] });
    }
    const withKeys = operations.filter(([, , op]) => op.security?.some((s) => 'apiKey' in s)).map(([, , op]) => op.operationId);
    expect(withKeys.sort()).toEqual(['createInteraction', 'createInteractionsBatch', 'exportInteractions', 'getInteraction',
      'listEventTypes', 'listInteractions', 'lookupSignal', 'searchInteractions']);
  });
});
