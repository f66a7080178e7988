import type { Updateable } from 'kysely';
import type { Deps } from '../../platform/deps.js';
import type { UsersTable } from '../../kernel/tables/database.js';
import type { RequestContext } from '../../kernel/context.js';
import { AppError, notFound } from '../../kernel/errors.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import { hashPassword } from '../../kernel/passwords.js';
import { writeAudit } from '../audit/audit.writer.js';
import { revokeUserSessions } from '../../platform/identity/sessions.js';
import { emit } from '../../platform/outbox/outbox.js';
import {
  assertNotLastAdmin, assertNotSelf, assertStrongPassword, assertUserId, refuseFields, requireTarget,
} from './users.guards.js';
import { deleteProvisionedUser } from './provisioning.service.js';
import * as repo from './users.repo.js';
import { toUserResponse, type UpdateUserInput, type UserListFilters, type UserResponse } from './users.schemas.js';

export async function listUsers(deps: Deps, ctx: RequestContext, filters: UserListFilters, request: PageRequest) {
  const { rows, page, total } = await repo.listUsers(deps.store.db, ctx.tenantId, filters, request);
  return { body: { users: rows.map(toUserResponse), total, next_cursor: page.nextCursor }, page };
}

export async function getUser(deps: Deps, ctx: RequestContext, userId: string): Promise<UserResponse> {
  assertUserId(userId);
  const row = await repo.findUser(deps.store.db, ctx.tenantId, userId);
  if (!row) throw notFound('User');
  return toUserResponse(row);
}

/** Changes `display_name` and `role`; the new role applies on the user's next request. */
export async function updateUser(deps: Deps, ctx: RequestContext, userId: string, input: UpdateUserInput) {
  refuseFields(input, { email: 'cannot be changed through the API' });
  assertUserId(userId);
  if (input.role === 'viewer') assertNotSelf(ctx, userId, 'lower the role of');
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const locked = await repo.lockForChange(tx, ctx.tenantId, userId);
    const target = requireTarget(locked);
    const changes: Updateable<UsersTable> = {};
    if (input.display_name !== undefined && input.display_name !== target.display_name) changes.display_name = input.display_name;
    if (input.role !== undefined && input.role !== target.role) {
      if (input.role === 'viewer') assertNotLastAdmin(locked, target);
      changes.role = input.role;
    }
    if (Object.keys(changes).length === 0) return toUserResponse(target);

    const updated = toUserResponse(await repo.updateUser(tx, ctx.tenantId, userId, { ...changes, updated_at: now }));
    if (changes.display_name !== undefined) {
      await writeAudit(tx, ctx, {
        action: 'user.updated', targetType: 'user', targetId: userId,
        details: { email: target.email, display_name: { from: target.display_name, to: changes.display_name } },
      }, now);
    }
    if (changes.role) {
      await writeAudit(tx, ctx, {
        action: 'user.role_changed', targetType: 'user', targetId: userId,
        details: { email: target.email, from: target.role, to: changes.role },
      }, now);
      await emit(tx, ctx.tenantId, 'user.role_changed', updated, now);
    }
    return updated;
  });
}

/** `active <-> inactive`; a pending user has no status to switch. Disabling logs the user out at once. */
export async function setUserStatus(deps: Deps, ctx: RequestContext, userId: string, status: 'active' | 'inactive') {
  assertUserId(userId);
  if (status === 'inactive') assertNotSelf(ctx, userId, 'disable');
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const locked = await repo.lockForChange(tx, ctx.tenantId, userId);
    const target = requireTarget(locked);
    if (target.status === 'pending') {
      throw new AppError('invalid_state', 'A pending user has not accepted the invitation yet; resend or delete it instead');
    }
    if (target.status === status) return toUserResponse(target);
    if (status === 'inactive') {
      assertNotLastAdmin(locked, target);
      await revokeUserSessions(tx, ctx.tenantId, userId, now);
    }
    const updated = await repo.updateUser(tx, ctx.tenantId, userId, { status, updated_at: now });
    await writeAudit(tx, ctx, {
      action: 'user.status_changed', targetType: 'user', targetId: userId,
      details: { email: target.email, from: target.status, to: status },
    }, now);
    return toUserResponse(updated);
  });
}

/** Sets a new password and revokes every token of the user, the caller's own included. */
export async function resetPassword(deps: Deps, ctx: RequestContext, userId: string, newPassword: string) {
  assertStrongPassword('body.new_password', newPassword);
  assertUserId(userId);
  const passwordHash = await hashPassword(newPassword);
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (tx) => {
    const target = await repo.lockUser(tx, ctx.tenantId, userId);
    if (!target) throw notFound('User');
    await repo.updateUser(tx, ctx.tenantId, userId, { password_hash: passwordHash, updated_at: now });
    await revokeUserSessions(tx, ctx.tenantId, userId, now);
    await writeAudit(tx, ctx, {
      action: 'user.password_reset', targetType: 'user', targetId: userId, details: { email: target.email },
    }, now);
  });
  return { success: true, message: 'The password was reset; the user was logged out everywhere' };
}

/** Irreversible: the user and their sessions go; audit entries that mention them stay. */
export async function deleteUser(deps: Deps, ctx: RequestContext, userId: string): Promise<void> {
  assertUserId(userId);
  assertNotSelf(ctx, userId, 'delete');
  const now = deps.clock.now();
  await deps.store.db.transaction().execute((tx) => deleteProvisionedUser(tx, ctx, userId, now, {}));
}
