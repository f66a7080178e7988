import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { errorResponses, NoContent, ref } from '../../kernel/schemas.js';
import { LoginResponse } from '../users/users.schemas.js';
import { LoginBody } from './auth.schemas.js';
import { login, logout } from './auth.service.js';

export const authRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/auth/login', {
    config: { access: { public: true } },
    schema: {
      tags: ['auth'],
      operationId: 'login',
      summary: 'Log in',
      description: 'Log in with email and password; returns a bearer token.',
      body: ref(LoginBody),
      response: { 200: ref(LoginResponse), ...errorResponses(401, 429) },
    },
  }, async (request) => login(deps, request.body, { ip: request.ip, requestId: request.id }));

  app.post('/auth/logout', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: {
      tags: ['auth'],
      operationId: 'logout',
      summary: 'Log out',
      description: 'Revoke the session token in use; it stops working at once. API keys are revoked with `revokeApiKey`.',
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await logout(deps, request.ctx);
    return reply.code(204).send(null);
  });
};
