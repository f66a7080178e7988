import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import type { Access } from '../../lib/context.js';
import { setPageHeaders, toPage } from '../../lib/pagination.js';
import { errorResponses, NoContent } from '../../lib/schemas.js';
import {
  CreatePolicyBody, PolicyListQuery, PolicyListSchema, PolicyParams, PolicySchema, UpdatePolicyBody,
} from './policies.schemas.js';
import {
  createPolicy, deletePolicy, getPolicy, listPolicies, setPolicyEnabled, updatePolicy,
} from './policies.service.js';

const READERS: Access = { roles: ['admin', 'viewer'] };

/** Policies: admins write (the default access), viewers read; API keys have no access. */
export const policiesRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/policies', {
    schema: {
      tags: ['policies'],
      summary: 'Create a policy; it judges every interaction created from now on',
      body: CreatePolicyBody,
      response: { 201: PolicySchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => reply.code(201).send(await createPolicy(deps, request.ctx, request.body)));

  app.get('/policies', {
    config: { access: READERS },
    schema: {
      tags: ['policies'],
      summary: 'List policies, oldest first',
      querystring: PolicyListQuery,
      response: { 200: PolicyListSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { body, page } = await listPolicies(deps, request.ctx, request.query, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  app.get('/policies/:policy_id', {
    config: { access: READERS },
    schema: {
      tags: ['policies'],
      summary: 'Read a policy',
      params: PolicyParams,
      response: { 200: PolicySchema, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => getPolicy(deps, request.ctx, request.params.policy_id));

  app.put('/policies/:policy_id', {
    schema: {
      tags: ['policies'],
      summary: 'Update a policy: fields left out keep their value; conditions, when given, are replaced whole',
      params: PolicyParams,
      body: UpdatePolicyBody,
      response: { 200: PolicySchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => updatePolicy(deps, request.ctx, request.params.policy_id, request.body));

  app.delete('/policies/:policy_id', {
    schema: {
      tags: ['policies'],
      summary: 'Delete a policy; alerts it raised stay',
      params: PolicyParams,
      response: { 204: NoContent, ...errorResponses(401, 403, 404) },
    },
  }, async (request, reply) => {
    await deletePolicy(deps, request.ctx, request.params.policy_id);
    return reply.code(204).send(null);
  });

  for (const [verb, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post(`/policies/:policy_id/${verb}`, {
      schema: {
        tags: ['policies'],
        summary: `${verb === 'enable' ? 'Enable' : 'Disable'} a policy (no change if it already is)`,
        params: PolicyParams,
        response: { 200: PolicySchema, ...errorResponses(401, 403, 404) },
      },
    }, async (request) => setPolicyEnabled(deps, request.ctx, request.params.policy_id, enabled));
  }
};
