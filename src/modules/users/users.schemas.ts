import { type Static, Type } from 'typebox';
import type { UserRow } from '../../db/types.js';
import { Nullable, StringEnum } from '../../lib/schemas.js';

export const RoleSchema = StringEnum(['admin', 'viewer']);
export const UserStatusSchema = StringEnum(['pending', 'active', 'inactive']);

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
