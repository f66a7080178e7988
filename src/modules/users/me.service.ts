import type { Updateable } from 'kysely';
import type { Deps } from '../../platform/deps.js';
import type { UsersTable } from '../../kernel/tables/database.js';
import type { RequestContext } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { hashPassword } from '../../kernel/passwords.js';
import { writeAudit } from '../audit/audit.writer.js';
import { revokeUserSessions } from '../../platform/identity/sessions.js';
import { assertStrongPassword, refuseFields } from './users.guards.js';
import * as repo from './users.repo.js';
import { toUserResponse, type UpdateMeInput, type UserResponse } from './users.schemas.js';

function callerId(ctx: RequestContext): string {
  if (ctx.actor.type !== 'user' || !ctx.actor.id) throw notFound('User');
  return ctx.actor.id;
}

export async function getMe(deps: Deps, ctx: RequestContext): Promise<UserResponse> {
  const row = await repo.findUser(deps.store.db, ctx.tenantId, callerId(ctx));
  if (!row) throw notFound('User');
  return toUserResponse(row);
}

/**
 * Changes the caller's own display name and password. A new password keeps the token in use
 * and revokes the caller's other tokens.
 */
export async function updateMe(deps: Deps, ctx: RequestContext, input: UpdateMeInput): Promise<UserResponse> {
  refuseFields(input, {
    email: 'cannot be changed through the API',
    role: 'cannot be changed by its owner; another admin must do it',
  });
  if (input.password !== undefined) assertStrongPassword('body.password', input.password);
  const userId = callerId(ctx);
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const current = await repo.lockUser(tx, ctx.tenantId, userId);
    if (!current) throw notFound('User');
    const changes: Updateable<UsersTable> = {};
    if (input.display_name !== undefined && input.display_name !== current.display_name) changes.display_name = input.display_name;
    if (passwordHash !== undefined) changes.password_hash = passwordHash;
    if (Object.keys(changes).length === 0) return toUserResponse(current);

    const updated = await repo.updateUser(tx, ctx.tenantId, userId, { ...changes, updated_at: now });
    if (passwordHash !== undefined) await revokeUserSessions(tx, ctx.tenantId, userId, now, ctx.sessionId);
    const details: Record<string, unknown> = { email: current.email, password_changed: passwordHash !== undefined };
    if (changes.display_name !== undefined) details.display_name = { from: current.display_name, to: changes.display_name };
    await writeAudit(tx, ctx, { action: 'user.profile_updated', targetType: 'user', targetId: userId, details }, now);
    return toUserResponse(updated);
  });
}
