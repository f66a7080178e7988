import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Deps } from '../../platform/deps.js';
import { storeOutages } from '../../platform/store/store-outages.js';
import type { CredentialCache } from '../auth/credential-cache.js';
import { registerRateLimit, type RateLimitSettings } from '../auth/rate-limit/rate-limit.js';
import { scimAuthentication } from './scim.auth.js';
import { resourceTypes, schemas, serviceProviderConfig, userResourceType, userSchema } from './scim.discovery.js';
import { ScimError, toScimError } from './scim.errors.js';
import { SCIM_CONTENT_TYPE, SCIM_USER_SCHEMA, scimBaseUrl } from './scim.schemas.js';
import { createUser, deleteUser, getUser, listUsers, patchUser, replaceUser } from './scim.service.js';

interface ScimOptions {
  deps: Deps;
  credentials: CredentialCache;
  rateLimit: RateLimitSettings;
}

type IdParams = { Params: { id: string } };

/** SCIM's routes are not in the OpenAPI document: SCIM describes itself (ServiceProviderConfig, Schemas). */
const HIDDEN = { schema: { hide: true } };

/**
 * SCIM 2.0 provisioning (RFC 7643/7644), registered under `/scim/v2`: Users and the discovery
 * endpoints. Every answer, errors included, is `application/scim+json`; JSON bodies are read as
 * either content type.
 */
export const scimRoutes: FastifyPluginAsync<ScimOptions> = async (app, { deps, credentials, rateLimit }) => {
  registerJsonBodies(app);
  app.addHook('onRequest', scimAuthentication(credentials, await registerRateLimit(app, rateLimit)));
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode !== 204) reply.header('content-type', SCIM_CONTENT_TYPE);
    return payload;
  });
  registerScimErrors(app, deps);

  const base = scimBaseUrl(deps.config.server.publicBaseUrl);
  app.get('/ServiceProviderConfig', HIDDEN, async () => serviceProviderConfig(base));
  app.get('/ResourceTypes', HIDDEN, async () => resourceTypes(base));
  app.get<IdParams>('/ResourceTypes/:id', HIDDEN, async (request) => {
    if (request.params.id !== 'User') throw new ScimError(404, undefined, 'Resource type not found');
    return userResourceType(base);
  });
  app.get('/Schemas', HIDDEN, async () => schemas(base));
  app.get<IdParams>('/Schemas/:id', HIDDEN, async (request) => {
    if (request.params.id !== SCIM_USER_SCHEMA) throw new ScimError(404, undefined, 'Schema not found');
    return userSchema(base);
  });

  app.get('/Users', HIDDEN, async (request) => listUsers(deps, request.ctx, request.query as Record<string, unknown>));
  app.post('/Users', HIDDEN, async (request, reply) => {
    const user = await createUser(deps, request.ctx, request.body);
    return reply.code(201).header('location', user.meta.location).send(user);
  });
  app.get<IdParams>('/Users/:id', HIDDEN, async (request) => getUser(deps, request.ctx, request.params.id));
  app.put<IdParams>('/Users/:id', HIDDEN, async (request) => replaceUser(deps, request.ctx, request.params.id, request.body));
  app.patch<IdParams>('/Users/:id', HIDDEN, async (request) => patchUser(deps, request.ctx, request.params.id, request.body));
  app.delete<IdParams>('/Users/:id', HIDDEN, async (request, reply) => {
    await deleteUser(deps, request.ctx, request.params.id);
    return reply.code(204).send();
  });
  // Every other path under /scim/v2 (Groups, Bulk, .search…), rather than the console's pages or the API's 404.
  app.all('/*', HIDDEN, async (request) => {
    throw new ScimError(404, undefined, `No SCIM endpoint for ${request.method} ${request.url.split('?')[0]}`);
  });
};

/**
 * JSON as `application/scim+json` or `application/json`. An empty body is no body (a DELETE may
 * carry the content type without one); the handlers that need a body say it is missing.
 */
function registerJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', 'application/scim+json'], { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') done(null, undefined);
    else parseJson(request, text, done);
  });
}

/** SCIM error bodies for every failure under `/scim/v2`. */
function registerScimErrors(app: FastifyInstance, deps: Deps): void {
  const outages = storeOutages(deps.store, app.log);
  app.setErrorHandler((error, request, reply) => {
    const mapped = toScimError(error);
    // A store outage is a few warn lines in all (store-outages.ts), not a stack trace per request.
    if (mapped.status >= 500 && !outages.record(error, 'request')) request.log.error({ err: error }, 'request failed');
    if (mapped.retryAfterSeconds !== undefined) reply.header('retry-after', String(mapped.retryAfterSeconds));
    if (mapped.status === 401) reply.header('www-authenticate', 'Bearer realm="scim"');
    return reply.code(mapped.status).send(mapped.body);
  });
}
