import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import type { Access } from '../../kernel/context.js';
import { setPageHeaders, toPage } from '../../kernel/paging/pagination.js';
import { errorResponses, NoContent, ref } from '../../kernel/schemas.js';
import { acceptInvitation, inviteUser, resendInvitation } from './invitations.service.js';
import { getMe, updateMe } from './me.service.js';
import {
  AcceptInviteBody, InviteBody, LoginResponse, ResetPasswordBody, ResetPasswordResponse, StatusBody, UpdateMeBody, UpdateUserBody,
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
      operationId: 'inviteUser',
      summary: 'Invite a user',
      description: 'Invite a user by email; creates a pending user and sends a 7-day invitation link.',
      body: ref(InviteBody),
      response: { 201: ref(UserSchema), ...errorResponses(409) },
    },
  }, async (request, reply) => reply.code(201).send(await inviteUser(deps, request.ctx, request.body)));

  app.get('/users', {
    schema: {
      tags: USERS_TAG,
      operationId: 'listUsers',
      summary: 'List users',
      description: 'The users of the organization, pending, active and inactive, filtered by role and status.',
      querystring: UserListQuery,
      response: { 200: ref(UserList) },
    },
  }, async (request, reply) => {
    const { body, page } = await listUsers(deps, request.ctx, request.query, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  // Static paths win over `/users/:user_id` in the router, so `me` is never taken for an id.
  app.get('/users/me', {
    config: { access: ANY_USER },
    schema: { tags: USERS_TAG, operationId: 'getCurrentUser',
      summary: "Get the caller's profile",
      description: 'The profile of the user whose session token is in use.', response: { 200: ref(UserSchema) } },
  }, async (request) => getMe(deps, request.ctx));

  app.put('/users/me', {
    config: { access: ANY_USER },
    schema: {
      tags: USERS_TAG,
      operationId: 'updateCurrentUser',
      summary: "Update the caller's profile",
      description: "Change the caller's display name or password; a new password revokes the caller's other tokens.",
      body: ref(UpdateMeBody),
      response: { 200: ref(UserSchema) },
    },
  }, async (request) => updateMe(deps, request.ctx, request.body));

  app.get('/users/:user_id', {
    schema: {
      tags: USERS_TAG,
      operationId: 'getUser',
      summary: 'Get a user',
      description: "One user of the caller's organization, whatever their status.",
      params: UserParams,
      response: { 200: ref(UserSchema) },
    },
  }, async (request) => getUser(deps, request.ctx, request.params.user_id));

  app.put('/users/:user_id', {
    schema: {
      tags: USERS_TAG,
      operationId: 'updateUser',
      summary: 'Update a user',
      description: "Change a user's display name or role (email never changes)",
      params: UserParams,
      body: ref(UpdateUserBody),
      response: { 200: ref(UserSchema), ...errorResponses(409) },
    },
  }, async (request) => updateUser(deps, request.ctx, request.params.user_id, request.body));

  app.patch('/users/:user_id/status', {
    schema: {
      tags: USERS_TAG,
      operationId: 'setUserStatus',
      summary: "Set a user's status",
      description: 'Enable or disable a user; disabling revokes their tokens at once.',
      params: UserParams,
      body: ref(StatusBody),
      response: { 200: ref(UserSchema), ...errorResponses(409) },
    },
  }, async (request) => setUserStatus(deps, request.ctx, request.params.user_id, request.body.status));

  app.post('/users/:user_id/reset-password', {
    schema: {
      tags: USERS_TAG,
      operationId: 'resetUserPassword',
      summary: "Reset a user's password",
      description: 'Set a new password for a user; every token of the user is revoked.',
      params: UserParams,
      body: ref(ResetPasswordBody),
      response: { 200: ref(ResetPasswordResponse) },
    },
  }, async (request) => resetPassword(deps, request.ctx, request.params.user_id, request.body.new_password));

  app.post('/users/:user_id/resend-invitation', {
    schema: {
      tags: USERS_TAG,
      operationId: 'resendInvitation',
      summary: 'Resend an invitation',
      description: 'Send a pending user a new 7-day invitation link; earlier links stop working.',
      params: UserParams,
      response: { 200: ref(UserSchema), ...errorResponses(409) },
    },
  }, async (request) => resendInvitation(deps, request.ctx, request.params.user_id));

  app.delete('/users/:user_id', {
    schema: {
      tags: USERS_TAG,
      operationId: 'deleteUser',
      summary: 'Delete a user',
      description: 'Delete a user (irreversible); their tokens stop working at once.',
      params: UserParams,
      response: { 204: NoContent, ...errorResponses(409) },
    },
  }, async (request, reply) => {
    await deleteUser(deps, request.ctx, request.params.user_id);
    return reply.code(204).send(null);
  });

  app.post('/auth/accept-invite', {
    config: { access: { public: true } },
    schema: {
      tags: ['auth'],
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation',
      description: 'Accept an invitation: choose a password, become active and get a token (same body as login)',
      body: ref(AcceptInviteBody),
      response: { 200: ref(LoginResponse), ...errorResponses(404, 410) },
    },
  }, async (request) => acceptInvitation(deps, request.body, { ip: request.ip, requestId: request.id }));
};
