import { type Static, Type } from 'typebox';
import type { UserRow } from '../../db/types.js';
import { NextCursor, PageQuery } from '../../lib/pagination.js';
import { Nullable, StringEnum } from '../../lib/schemas.js';

export const RoleSchema = StringEnum(['admin', 'viewer']);
export const UserStatusSchema = StringEnum(['pending', 'active', 'inactive']);
export const USER_SORTS = ['created_at', '-created_at', 'email', '-email'] as const;

/** A user as the API returns it. Secrets (password hash) never appear here. */
export const UserSchema = Type.Object({
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
  invitation_expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
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

export const InviteBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 320 }),
  role: RoleSchema,
  display_name: Type.Optional(DisplayName),
});
export type InviteInput = Static<typeof InviteBody>;

export const UserListQuery = Type.Object({
  ...PageQuery,
  role: Type.Optional(RoleSchema),
  status: Type.Optional(UserStatusSchema),
  sort: Type.Optional(StringEnum(USER_SORTS, { default: 'created_at', description: '`-` prefix: descending' })),
});
export type UserListFilters = Pick<Static<typeof UserListQuery>, 'role' | 'status' | 'sort'>;

export const UserList = Type.Object({ users: Type.Array(UserSchema), total: Type.Integer(), next_cursor: NextCursor });

export const UpdateUserBody = Type.Object({
  display_name: Type.Optional(DisplayName),
  role: Type.Optional(RoleSchema),
  email: Refused('the email of a user cannot be changed'),
});
export type UpdateUserInput = Static<typeof UpdateUserBody>;

export const StatusBody = Type.Object({ status: StringEnum(['active', 'inactive']) });

export const ResetPasswordBody = Type.Object({ new_password: Password });
export const ResetPasswordResponse = Type.Object({ success: Type.Boolean(), message: Type.String() });

export const UpdateMeBody = Type.Object({
  display_name: Type.Optional(DisplayName),
  password: Type.Optional(Password),
  email: Refused('the email of a user cannot be changed'),
  role: Refused('nobody changes their own role'),
});
export type UpdateMeInput = Static<typeof UpdateMeBody>;

export const AcceptInviteBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  password: Password,
  display_name: Type.Optional(DisplayName),
});
export type AcceptInviteInput = Static<typeof AcceptInviteBody>;
