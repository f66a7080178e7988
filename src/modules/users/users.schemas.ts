import { type Static, Type } from 'typebox';
import type { UserRow } from '../../kernel/tables/database.js';
import { NextCursor, PageQuery } from '../../kernel/paging/pagination.js';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { component, Nullable, ref, StringEnum } from '../../kernel/schemas.js';

export const RoleSchema = StringEnum(['admin', 'viewer']);
export const UserStatusSchema = StringEnum(['pending', 'active', 'inactive']);
export const USER_SORTS = ['created_at', '-created_at', 'email', '-email'] as const;

/** A user as the API returns it. Secrets (password hash) never appear here. */
export const UserSchema = component('User', Type.Object({
  id: Type.String({ format: 'uuid' }),
  tenant_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  display_name: Nullable(Type.String()),
  role: RoleSchema,
  status: UserStatusSchema,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  last_login: Nullable(Type.String({ format: 'date-time' })),
  invited_by: Nullable(Type.String()),
  invitation_expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time',
    description: 'Present while the user is pending: when their invitation link stops working' }))),
}), {
  description: 'A user of the organization. Secrets (the password hash) never appear.',
  example: {
    id: EXAMPLE_IDS.user, tenant_id: EXAMPLE_IDS.tenant, email: 'jane.doe@example.com', display_name: 'Jane Doe',
    role: 'viewer', status: 'active', created_at: '2026-01-12T08:30:00.000Z', updated_at: '2026-02-03T10:00:00.000Z',
    last_login: '2026-03-02T08:59:12.000Z', invited_by: EXAMPLE_IDS.admin,
  },
});
export type UserResponse = Static<typeof UserSchema>;

export function toUserResponse(row: UserRow): UserResponse {
  const user: UserResponse = {
    id: row.id,
    tenant_id: row.tenant_id,
    email: row.email,
    display_name: row.display_name,
    role: row.role,
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_login: row.last_login?.toISOString() ?? null,
    invited_by: row.invited_by,
  };
  if (row.status === 'pending') user.invitation_expires_at = row.invitation_expires_at?.toISOString() ?? null;
  return user;
}

// One type array rather than a union, so a wrong type gives one clear error.
const DisplayName = Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 200, description: 'null clears it' });
const Password = Type.String({ maxLength: 1024, description: 'At least 12 characters, with upper case, lower case and digits' });
const Refused = (why: string) => Type.Optional(Type.Unknown({ description: `Refused with 400: ${why}` }));

export const UserParams = Type.Object({ user_id: Type.String({ maxLength: 100 }) });

export const InviteBody = component('UserInvite', Type.Object({
  email: Type.String({ format: 'email', maxLength: 320 }),
  role: RoleSchema,
  display_name: Type.Optional(DisplayName),
}), {
  description: 'Whom to invite, with which role.',
  example: { email: 'jane.doe@example.com', role: 'viewer', display_name: 'Jane Doe' },
});
export type InviteInput = Static<typeof InviteBody>;

export const UserListQuery = Type.Object({
  ...PageQuery,
  role: Type.Optional(RoleSchema),
  status: Type.Optional(UserStatusSchema),
  sort: Type.Optional(StringEnum(USER_SORTS, { default: 'created_at', description: '`-` prefix: descending' })),
});
export type UserListFilters = Pick<Static<typeof UserListQuery>, 'role' | 'status' | 'sort'>;

export const UserList = component('UserList', Type.Object({
  users: Type.Array(ref(UserSchema)), total: Type.Integer(), next_cursor: NextCursor,
}), { description: 'A page of users.', example: { users: [UserSchema.examples[0]], total: 1, next_cursor: null } });

export const UpdateUserBody = component('UserUpdate', Type.Object({
  display_name: Type.Optional(DisplayName),
  role: Type.Optional(RoleSchema),
  email: Refused('the email of a user cannot be changed'),
}), { description: "A change of a user's display name or role; fields left out keep their value.", example: { role: 'admin' } });
export type UpdateUserInput = Static<typeof UpdateUserBody>;

export const StatusBody = component('UserStatusUpdate', Type.Object({ status: StringEnum(['active', 'inactive']) }), {
  description: 'Enable (`active`) or disable (`inactive`) a user.', example: { status: 'inactive' },
});

export const ResetPasswordBody = component('PasswordReset', Type.Object({ new_password: Password }), {
  description: 'The new password an administrator sets for a user.', example: { new_password: 'Correct-Horse-42-Battery' },
});
export const ResetPasswordResponse = component('PasswordResetResult', Type.Object({ success: Type.Boolean(), message: Type.String() }), {
  description: 'The outcome of a password reset.',
  example: { success: true, message: 'Password reset; every token of the user was revoked' },
});

export const UpdateMeBody = component('CurrentUserUpdate', Type.Object({
  display_name: Type.Optional(DisplayName),
  password: Type.Optional(Password),
  email: Refused('the email of a user cannot be changed'),
  role: Refused('nobody changes their own role'),
}), { description: "A change of the caller's own display name or password.", example: { display_name: 'Jane D.' } });
export type UpdateMeInput = Static<typeof UpdateMeBody>;

export const AcceptInviteBody = component('InvitationAcceptance', Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The `inv_…` token of the invitation link' }),
  password: Password,
  display_name: Type.Optional(DisplayName),
}), {
  description: 'The answer to an invitation: its token and the password the new user chooses.',
  example: { token: 'inv_Q2xpY2sgdGhlIGxpbmsgaW4gdGhlIGVtYWls', password: 'Correct-Horse-42-Battery', display_name: 'Jane Doe' },
});
export type AcceptInviteInput = Static<typeof AcceptInviteBody>;

export const LoginResponse = component('Session', Type.Object({
  token: Type.String({ description: 'Session token (prefix `ugt_`): send it as `Authorization: Bearer <token>`' }),
  token_type: Type.Literal('Bearer'),
  expires_at: Type.String({ format: 'date-time' }),
  user: ref(UserSchema),
}), {
  description: 'A new session: its bearer token and the user it belongs to.',
  example: {
    token: 'ugt_3q2-7wAAAAC5Yk1tZ0xGc0p0bWJ2aVhDSkRqQ2c', token_type: 'Bearer', expires_at: '2026-03-03T08:59:12.000Z',
    user: UserSchema.examples[0],
  },
});

/** A new session as login and accepting an invitation return it. */
export interface LoginResult {
  token: string;
  token_type: 'Bearer';
  expires_at: string;
  user: UserResponse;
}
