import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { setPageHeaders, toPage } from '../../lib/pagination.js';
import { errorResponses, NoContent } from '../../lib/schemas.js';
import { ApiKeyList, ApiKeyListQuery, ApiKeyParams, CreateApiKeyBody, CreatedApiKeySchema } from './api-keys.schemas.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.js';

export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/api-keys', {
    schema: {
      tags: ['api-keys'],
      summary: 'Create an API key for a machine client; the key is returned only here',
      body: CreateApiKeyBody,
      response: { 201: CreatedApiKeySchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => reply.code(201).send(await createApiKey(deps, request.ctx, request.body)));

  app.get('/api-keys', {
    schema: {
      tags: ['api-keys'],
      summary: 'List the active API keys (never the keys themselves)',
      querystring: ApiKeyListQuery,
      response: { 200: ApiKeyList, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { body, page } = await listApiKeys(deps, request.ctx, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  app.delete('/api-keys/:key_id', {
    schema: {
      tags: ['api-keys'],
      summary: 'Revoke an API key; it stops working at once',
      params: ApiKeyParams,
      response: { 204: NoContent, ...errorResponses(401, 403, 404) },
    },
  }, async (request, reply) => {
    await revokeApiKey(deps, request.ctx, request.params.key_id);
    return reply.code(204).send(null);
  });
};
