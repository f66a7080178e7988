import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponses, NoContent } from '../../lib/schemas.js';
import { LoginBody, LoginResponse } from './auth.schemas.js';
import { login, logout } from './auth.service.js';

export const authRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/auth/login', {
    config: { access: { public: true } },
    schema: {
      tags: ['auth'],
      summary: 'Log in with email and password; returns a bearer token',
      security: [],
      body: LoginBody,
      response: { 200: LoginResponse, ...errorResponses(400, 401, 429) },
    },
  }, async (request) => login(deps, request.body, { ip: request.ip, requestId: request.id }));

  app.post('/auth/logout', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: { tags: ['auth'], summary: 'Revoke the token in use', response: { 204: NoContent, ...errorResponses(401, 403) } },
  }, async (request, reply) => {
    await logout(deps, request.ctx);
    return reply.code(204).send(null);
  });
};
