import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { setPageHeaders, toPage } from '../../kernel/paging/pagination.js';
import { NoContent, ref } from '../../kernel/schemas.js';
import { ApiKeyList, ApiKeyListQuery, ApiKeyParams, CreateApiKeyBody, CreatedApiKeySchema } from './api-keys.schemas.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.js';

export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/api-keys', {
    schema: {
      tags: ['api-keys'],
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description: 'Create an API key for a machine client; the key is returned only here.',
      body: ref(CreateApiKeyBody),
      response: { 201: ref(CreatedApiKeySchema) },
    },
  }, async (request, reply) => reply.code(201).send(await createApiKey(deps, request.ctx, request.body)));

  app.get('/api-keys', {
    schema: {
      tags: ['api-keys'],
      operationId: 'listApiKeys',
      summary: 'List API keys',
      description: 'List the active API keys (never the keys themselves)',
      querystring: ApiKeyListQuery,
      response: { 200: ref(ApiKeyList) },
    },
  }, async (request, reply) => {
    const { body, page } = await listApiKeys(deps, request.ctx, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  app.delete('/api-keys/:key_id', {
    schema: {
      tags: ['api-keys'],
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'Revoke an API key; it stops working at once.',
      params: ApiKeyParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await revokeApiKey(deps, request.ctx, request.params.key_id);
    return reply.code(204).send(null);
  });
};
