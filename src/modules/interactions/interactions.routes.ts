import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import type { Access } from '../../lib/context.js';
import { setPageHeaders, toPage } from '../../lib/pagination.js';
import { withCredentialRecheck } from '../../plugins/authenticate.js';
import { bodyValidatedByHandler } from '../../plugins/validation.js';
import { errorResponses, NoContent } from '../../lib/schemas.js';
import type { CreateResponse } from './idempotency.js';
import {
  BatchBodySchema, BatchResultSchema, InteractionInputSchema, InteractionListSchema, InteractionParams,
  InteractionSchema, ListInteractionsQuery, SearchQuery, SearchResultSchema,
} from './interactions.schemas.js';
import {
  createBatch, createInteraction, deleteInteraction, getInteraction, listInteractions, searchInteractions,
} from './interactions.service.js';

const WRITERS: Access = { roles: ['admin'], scopes: ['interactions:write'] };
const READERS: Access = { roles: ['admin', 'viewer'], scopes: ['interactions:read'] };

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$',
    description: 'Retries with the same key within 24 h return the first response and store nothing',
  })),
});

function sendCreated(reply: FastifyReply, result: CreateResponse) {
  if (result.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(result.status).send(result.body);
}

export const interactionsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/interactions', {
    config: { access: WRITERS, credentialCheckedInTransaction: true },
    // parseInteraction validates the body (the same schema, then the rules a schema cannot say): once is enough.
    validatorCompiler: bodyValidatedByHandler,
    schema: {
      tags: ['interactions'],
      summary: 'Record an interaction; the response carries the policy decisions taken on it',
      headers: IdempotencyHeaders,
      body: InteractionInputSchema,
      response: { 201: InteractionSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
  }, async (request, reply) => sendCreated(reply, await withCredentialRecheck(deps, request,
    (ctx) => createInteraction(deps, ctx, request.body, request.headers['idempotency-key']))));

  app.post('/interactions/batch', {
    config: { access: WRITERS, credentialCheckedInTransaction: true },
    schema: {
      tags: ['interactions'],
      summary: 'Record up to 500 interactions; invalid items are skipped',
      headers: IdempotencyHeaders,
      body: BatchBodySchema,
      response: { 200: BatchResultSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
  }, async (request, reply) => sendCreated(reply, await withCredentialRecheck(deps, request,
    (ctx) => createBatch(deps, ctx, request.body, request.headers['idempotency-key']))));

  app.get('/interactions', {
    config: { access: READERS },
    schema: {
      tags: ['interactions'],
      summary: 'List interactions with filters, newest first by default',
      querystring: ListInteractionsQuery,
      response: { 200: InteractionListSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { body, page } = await listInteractions(deps, request.ctx, request.query, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  app.get('/interactions/search', {
    config: { access: READERS },
    schema: {
      tags: ['interactions'],
      summary: 'Find the interactions of one content hash, newest first',
      querystring: SearchQuery,
      response: { 200: SearchResultSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request) => searchInteractions(deps, request.ctx, request.query));

  app.get('/interactions/:interaction_id', {
    config: { access: READERS },
    schema: {
      tags: ['interactions'],
      summary: 'Read an interaction',
      params: InteractionParams,
      response: { 200: InteractionSchema, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => getInteraction(deps, request.ctx, request.params.interaction_id));

  app.delete('/interactions/:interaction_id', {
    schema: {
      tags: ['interactions'],
      summary: 'Delete an interaction (admin; irreversible, audited)',
      params: InteractionParams,
      response: { 204: NoContent, ...errorResponses(401, 403, 404) },
    },
  }, async (request, reply) => {
    await deleteInteraction(deps, request.ctx, request.params.interaction_id);
    return reply.code(204).send(null);
  });
};
