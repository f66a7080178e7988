import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../platform/deps.js';
import type { CredentialCache } from '../auth/credential-cache.js';
import type { IngestPipeline } from './ingest/pipeline.js';
import type { Access } from '../../kernel/context.js';
import { setPageHeaders, toPage } from '../../kernel/paging/pagination.js';
import { withCredentialRecheck } from '../auth/authenticate.js';
import { bodyValidatedAs, bodyValidatedByHandler } from '../../platform/http/validation.js';
import { errorResponses, NoContent, ref } from '../../kernel/schemas.js';
import type { CreateResponse } from './ingest/idempotency.js';
import {
  BatchBodySchema, BatchBodyValidated, BatchResultSchema, InteractionInputSchema, InteractionListSchema, InteractionParams,
  InteractionSchema, ListInteractionsQuery, SearchQuery, SearchResultSchema, SignalLookupInputSchema, SignalLookupSchema,
} from './interactions.schemas.js';
import { lookupSignal } from './signal-lookup.js';
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

/** The per-app services the create routes use: the ingest queue, and the credentials a write may check again. */
export interface InteractionsRoutesOptions {
  deps: Deps;
  ingest: IngestPipeline;
  credentials: CredentialCache;
}

export const interactionsRoutes: FastifyPluginAsyncTypebox<InteractionsRoutesOptions> = async (app, { deps, ingest, credentials }) => {
  app.post('/interactions', {
    config: { access: WRITERS, credentialCheckedInTransaction: true },
    // parseInteraction validates the body (the same schema, then the rules a schema cannot say): once is enough.
    validatorCompiler: bodyValidatedByHandler(app),
    schema: {
      tags: ['interactions'],
      operationId: 'createInteraction',
      summary: 'Record an interaction',
      description: 'Record an interaction; the response carries the policy decisions taken on it.',
      headers: IdempotencyHeaders,
      body: ref(InteractionInputSchema),
      response: { 201: ref(InteractionSchema), ...errorResponses(409) },
    },
  }, async (request, reply) => sendCreated(reply, await withCredentialRecheck(credentials, request,
    (ctx) => createInteraction(deps, ingest, ctx, request.body, request.headers['idempotency-key']))));

  app.post('/interactions/batch', {
    config: { access: WRITERS, credentialCheckedInTransaction: true },
    // The handler checks each item and skips the invalid ones: only the array itself is refused up front.
    validatorCompiler: bodyValidatedAs(app, BatchBodyValidated),
    schema: {
      tags: ['interactions'],
      operationId: 'createInteractionsBatch',
      summary: 'Record interactions in a batch',
      description: 'Record up to 500 interactions; invalid items are skipped.',
      headers: IdempotencyHeaders,
      body: ref(BatchBodySchema),
      response: { 200: ref(BatchResultSchema), ...errorResponses(409) },
    },
  }, async (request, reply) => sendCreated(reply, await withCredentialRecheck(credentials, request,
    (ctx) => createBatch(deps, ingest, ctx, request.body, request.headers['idempotency-key']))));

  app.get('/interactions', {
    config: { access: READERS },
    schema: {
      tags: ['interactions'],
      operationId: 'listInteractions',
      summary: 'List interactions',
      description: 'List interactions with filters, newest first by default.',
      querystring: ListInteractionsQuery,
      response: { 200: ref(InteractionListSchema) },
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
      operationId: 'searchInteractions',
      summary: 'Search interactions by content hash',
      description: 'Find the interactions of one content hash, newest first.',
      querystring: SearchQuery,
      response: { 200: SearchResultSchema },
    },
  }, async (request) => searchInteractions(deps, request.ctx, request.query));

  app.post('/signals/lookup', {
    config: { access: READERS },
    schema: {
      tags: ['interactions'],
      operationId: 'lookupSignal',
      summary: 'Find where a detected value was seen',
      description: 'Turns a value into its fingerprint (keyed per tenant, nothing is stored) and says how many '
        + 'interactions hold it, from how many user ids, first and last seen. `GET /interactions?fingerprint=` lists them.',
      body: ref(SignalLookupInputSchema),
      response: { 200: ref(SignalLookupSchema) },
    },
  }, async (request) => lookupSignal(deps, request.ctx, request.body));

  app.get('/interactions/:interaction_id', {
    config: { access: READERS },
    schema: {
      tags: ['interactions'],
      operationId: 'getInteraction',
      summary: 'Get an interaction',
      description: "One interaction of the caller's tenant, with the policy decisions taken when it was recorded.",
      params: InteractionParams,
      response: { 200: ref(InteractionSchema) },
    },
  }, async (request) => getInteraction(deps, request.ctx, request.params.interaction_id));

  app.delete('/interactions/:interaction_id', {
    schema: {
      tags: ['interactions'],
      operationId: 'deleteInteraction',
      summary: 'Delete an interaction',
      description: 'Delete an interaction (admin; irreversible, audited)',
      params: InteractionParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await deleteInteraction(deps, request.ctx, request.params.interaction_id);
    return reply.code(204).send(null);
  });
};
