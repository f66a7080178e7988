import type { RequestContext } from '../../kernel/context.js';
import { AppError, notFound, validationError } from '../../kernel/errors.js';
import { isUuid } from '../../kernel/ids.js';
import { isStrongPassword, PASSWORD_RULE } from '../../kernel/passwords.js';
import type { LockedUsers } from './users.repo.js';
import type { UserRow } from '../../kernel/tables/database.js';

/** Malformed ids answer like unknown ones: 404, never 400 or 500. */
export function assertUserId(userId: string): void {
  if (!isUuid(userId)) throw notFound('User');
}

/** Fields a body may carry only to be refused: silently ignoring them would hide a mistake. */
export function refuseFields(body: object, fields: Record<string, string>): void {
  for (const [field, why] of Object.entries(fields)) {
    if (Object.hasOwn(body, field)) throw validationError(`body.${field}`, why);
  }
}

export const emailTaken = () => new AppError('email_taken', 'A user with this email already exists in the organization');

export function assertStrongPassword(path: string, password: string): void {
  if (!isStrongPassword(password)) throw validationError(path, `must have ${PASSWORD_RULE}`);
}

export function assertNotSelf(ctx: RequestContext, userId: string, action: string): void {
  if (ctx.actor.id === userId) {
    throw new AppError('self_action_forbidden', `You cannot ${action} yourself; another admin must do it`);
  }
}

export function requireTarget(locked: LockedUsers): UserRow {
  if (!locked.target) throw notFound('User');
  return locked.target;
}

/** A tenant always keeps one active admin: refuse the change that would remove the last one. */
export function assertNotLastAdmin(locked: LockedUsers, target: UserRow): void {
  const isActiveAdmin = target.role === 'admin' && target.status === 'active';
  if (isActiveAdmin && locked.activeAdminIds.length <= 1) {
    throw new AppError('invalid_state', 'This is the last active admin of the organization; promote another admin first');
  }
}
