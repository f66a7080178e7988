import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import type { Access } from '../../kernel/context.js';
import { setPageHeaders, toPage } from '../../kernel/paging/pagination.js';
import { NoContent, ref } from '../../kernel/schemas.js';
import { dryRunPolicy } from './policies.dry-run.js';
import {
  CreatePolicyBody, DryRunQuery, DryRunSchema, PolicyListQuery, PolicyListSchema, PolicyParams, PolicySchema, UpdatePolicyBody,
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
      operationId: 'createPolicy',
      summary: 'Create a policy',
      description: 'Create a policy; it judges every interaction created from now on.',
      body: ref(CreatePolicyBody),
      response: { 201: ref(PolicySchema) },
    },
  }, async (request, reply) => reply.code(201).send(await createPolicy(deps, request.ctx, request.body)));

  app.post('/policies/dry-run', {
    schema: {
      tags: ['policies'],
      operationId: 'dryRunPolicy',
      summary: 'Try a policy on past interactions',
      description: 'What a policy (the body of a create) would have matched among the interactions stored in the date '
        + 'range: how many, by resulting action, the alerts it would raise and up to 20 matching ids. Stores nothing. '
        + 'At most `POLICY_DRY_RUN_MAX_ROWS` interactions are examined, newest first; `truncated` says when the range held more.',
      body: ref(CreatePolicyBody),
      querystring: DryRunQuery,
      response: { 200: ref(DryRunSchema) },
    },
  }, async (request) => dryRunPolicy(deps, request.ctx, request.body, request.query));

  app.get('/policies', {
    config: { access: READERS },
    schema: {
      tags: ['policies'],
      operationId: 'listPolicies',
      summary: 'List policies',
      description: "Policies of the caller's tenant, oldest first, filtered by `enabled` and `action`.",
      querystring: PolicyListQuery,
      response: { 200: ref(PolicyListSchema) },
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
      operationId: 'getPolicy',
      summary: 'Get a policy',
      description: "One policy of the caller's tenant, with its conditions.",
      params: PolicyParams,
      response: { 200: ref(PolicySchema) },
    },
  }, async (request) => getPolicy(deps, request.ctx, request.params.policy_id));

  app.put('/policies/:policy_id', {
    schema: {
      tags: ['policies'],
      operationId: 'updatePolicy',
      summary: 'Update a policy',
      description: 'Update a policy: fields left out keep their value; conditions, when given, are replaced whole.',
      params: PolicyParams,
      body: ref(UpdatePolicyBody),
      response: { 200: ref(PolicySchema) },
    },
  }, async (request) => updatePolicy(deps, request.ctx, request.params.policy_id, request.body));

  app.delete('/policies/:policy_id', {
    schema: {
      tags: ['policies'],
      operationId: 'deletePolicy',
      summary: 'Delete a policy',
      description: 'Delete a policy; alerts it raised stay.',
      params: PolicyParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await deletePolicy(deps, request.ctx, request.params.policy_id);
    return reply.code(204).send(null);
  });

  for (const [verb, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post(`/policies/:policy_id/${verb}`, {
      schema: {
        tags: ['policies'],
        operationId: `${verb}Policy`,
      summary: `${verb === 'enable' ? 'Enable' : 'Disable'} a policy`,
      description: `${verb === 'enable' ? 'Enable' : 'Disable'} a policy (no change if it already is)`,
        params: PolicyParams,
        response: { 200: ref(PolicySchema) },
      },
    }, async (request) => setPolicyEnabled(deps, request.ctx, request.params.policy_id, enabled));
  }
};
