import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import type { Access } from '../../lib/context.js';
import { setPageHeaders, toPage } from '../../lib/pagination.js';
import { errorResponses, NoContent } from '../../lib/schemas.js';
import { LoginResponse } from '../auth/auth.schemas.js';
import { acceptInvitation, inviteUser, resendInvitation } from './invitations.service.js';
import { getMe, updateMe } from './me.service.js';
import {
  AcceptInviteBody, InviteBody, ResetPasswordBody, ResetPasswordResponse, StatusBody, UpdateMeBody, UpdateUserBody,
  UserList, UserListQuery, UserParams, UserSchema,
} from './users.schemas.js';
import { deleteUser, getUser, listUsers, resetPassword, setUserStatus, updateUser } from './users.service.js';

const USERS_TAG = ['users'];
/** `/users/me` is every user's own profile; every other users route is admin only (the default). */
const ANY_USER: Access = { roles: ['admin', 'viewer'] };

export const usersRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/users/invite', {
    schema: {
      tags: USERS_TAG,
      summary: 'Invite a user by email; creates a pending user and sends a 7-day invitation link',
      body: InviteBody,
      response: { 201: UserSchema, ...errorResponses(400, 401, 403, 409) },
    },
  }, async (request, reply) => reply.code(201).send(await inviteUser(deps, request.ctx, request.body)));

  app.get('/users', {
    schema: {
      tags: USERS_TAG,
      summary: 'List the users of the organization',
      querystring: UserListQuery,
      response: { 200: UserList, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { body, page } = await listUsers(deps, request.ctx, request.query, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  // Static paths win over `/users/:user_id` in the router, so `me` is never taken for an id.
  app.get('/users/me', {
    config: { access: ANY_USER },
    schema: { tags: USERS_TAG, summary: "The caller's own profile", response: { 200: UserSchema, ...errorResponses(401, 403) } },
  }, async (request) => getMe(deps, request.ctx));

  app.put('/users/me', {
    config: { access: ANY_USER },
    schema: {
      tags: USERS_TAG,
      summary: "Change the caller's display name or password; a new password revokes the caller's other tokens",
      body: UpdateMeBody,
      response: { 200: UserSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request) => updateMe(deps, request.ctx, request.body));

  app.get('/users/:user_id', {
    schema: {
      tags: USERS_TAG,
      summary: 'Get a user',
      params: UserParams,
      response: { 200: UserSchema, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => getUser(deps, request.ctx, request.params.user_id));

  app.put('/users/:user_id', {
    schema: {
      tags: USERS_TAG,
      summary: "Change a user's display name or role (email never changes)",
      params: UserParams,
      body: UpdateUserBody,
      response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request) => updateUser(deps, request.ctx, request.params.user_id, request.body));

  app.patch('/users/:user_id/status', {
    schema: {
      tags: USERS_TAG,
      summary: 'Enable or disable a user; disabling revokes their tokens at once',
      params: UserParams,
      body: StatusBody,
      response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request) => setUserStatus(deps, request.ctx, request.params.user_id, request.body.status));

  app.post('/users/:user_id/reset-password', {
    schema: {
      tags: USERS_TAG,
      summary: 'Set a new password for a user; every token of the user is revoked',
      params: UserParams,
      body: ResetPasswordBody,
      response: { 200: ResetPasswordResponse, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => resetPassword(deps, request.ctx, request.params.user_id, request.body.new_password));

  app.post('/users/:user_id/resend-invitation', {
    schema: {
      tags: USERS_TAG,
      summary: 'Send a pending user a new 7-day invitation link; earlier links stop working',
      params: UserParams,
      response: { 200: UserSchema, ...errorResponses(401, 403, 404, 409) },
    },
  }, async (request) => resendInvitation(deps, request.ctx, request.params.user_id));

  app.delete('/users/:user_id', {
    schema: {
      tags: USERS_TAG,
      summary: 'Delete a user (irreversible); their tokens stop working at once',
      params: UserParams,
      response: { 204: NoContent, ...errorResponses(401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    await deleteUser(deps, request.ctx, request.params.user_id);
    return reply.code(204).send(null);
  });

  app.post('/auth/accept-invite', {
    config: { access: { public: true } },
    schema: {
      tags: ['auth'],
      summary: 'Accept an invitation: choose a password, become active and get a token (same body as login)',
      security: [],
      body: AcceptInviteBody,
      response: { 200: LoginResponse, ...errorResponses(400, 404, 410) },
    },
  }, async (request) => acceptInvitation(deps, request.body, { ip: request.ip, requestId: request.id }));
};
