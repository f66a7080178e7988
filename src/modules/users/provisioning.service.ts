import type { Transaction, Updateable } from 'kysely';
import type { Database, Role, UserRow, UserStatus, UsersTable } from '../../kernel/tables/database.js';
import type { RequestContext } from '../../kernel/context.js';
import { uuidv7 } from '../../kernel/ids.js';
import { writeAudit } from '../audit/audit.writer.js';
import { revokeUserSessions } from '../../platform/identity/sessions.js';
import { emit } from '../../platform/outbox/outbox.js';
import { deleteInvitations } from './invitations.repo.js';
import { assertNotLastAdmin, emailTaken, requireTarget } from './users.guards.js';
import * as repo from './users.repo.js';
import { toUserResponse } from './users.schemas.js';

// What an identity provider (SCIM) does to the tenant's users. Each function runs in the caller's
// transaction, so the caller's own rows commit with the change, and keeps the users API's rules:
// unique emails, the last active admin, disabling logs out at once, audit entries and events.

/** Added to the details of every audit entry written, e.g. `{ via: 'scim' }`. */
export type AuditOrigin = Record<string, unknown>;

export interface ProvisionedUser {
  email: string;
  display_name: string | null;
  role: Role;
  active: boolean;
}

/** The wanted state; what is left out keeps its value. */
export interface ProvisioningChange {
  email?: string;
  display_name?: string | null;
  role?: Role;
  /** `true` activates a pending or inactive user; `false` disables an active one (a pending user stays pending). */
  active?: boolean;
  /** Attributes the caller keeps elsewhere and changes with these: recorded in the `user.updated` entry. */
  otherChanges?: Record<string, { from: unknown; to: unknown }>;
}

/** A user who exists at once, `active` (or `inactive`), with no password and no invitation. */
export async function createProvisionedUser(
  tx: Transaction<Database>, ctx: RequestContext, input: ProvisionedUser, now: Date, origin: AuditOrigin,
): Promise<UserRow> {
  if (await repo.emailInUse(tx, ctx.tenantId, input.email)) throw emailTaken();
  const row = await repo.insertUser(tx, {
    tenant_id: ctx.tenantId,
    id: uuidv7(now.getTime()),
    email: input.email,
    display_name: input.display_name,
    role: input.role,
    status: input.active ? 'active' : 'inactive',
    password_hash: null,
    invited_by: null,
    invitation_expires_at: null,
    created_at: now,
    updated_at: now,
    last_login: null,
  });
  await writeAudit(tx, ctx, {
    action: 'user.created', targetType: 'user', targetId: row.id,
    details: { email: row.email, role: row.role, status: row.status, ...origin },
  }, now);
  if (row.status === 'active') await emit(tx, ctx.tenantId, 'user.activated', toUserResponse(row), now);
  return row;
}

/**
 * Locks the user (with the tenant's active admins, as the users API does), asks `decide` what to
 * change given the locked row, and applies it. Unknown user: 404.
 */
export async function changeProvisionedUser(
  tx: Transaction<Database>,
  ctx: RequestContext,
  userId: string,
  decide: (current: UserRow) => Promise<ProvisioningChange>,
  now: Date,
  origin: AuditOrigin,
): Promise<UserRow> {
  const locked = await repo.lockForChange(tx, ctx.tenantId, userId);
  const target = requireTarget(locked);
  const wanted = await decide(target);
  const changes = userChanges(target, wanted);
  const otherChanges = wanted.otherChanges ?? {};
  if (Object.keys(changes).length === 0 && Object.keys(otherChanges).length === 0) return target;

  if (changes.role === 'viewer' || changes.status === 'inactive') assertNotLastAdmin(locked, target);
  if (changes.email !== undefined && !sameEmail(changes.email, target.email) && await repo.emailInUse(tx, ctx.tenantId, changes.email)) {
    throw emailTaken();
  }
  if (changes.status === 'inactive') await revokeUserSessions(tx, ctx.tenantId, userId, now);
  if (changes.status === 'active' && target.status === 'pending') {
    await deleteInvitations(tx, ctx.tenantId, userId);
    changes.invitation_expires_at = null;
  }
  const updated = await repo.updateUser(tx, ctx.tenantId, userId, { ...changes, updated_at: now });
  await recordChanges(tx, ctx, target, updated, otherChanges, now, origin);
  return updated;
}

/** Deletes the user and their sessions (the users API's delete too); never the tenant's last active admin. */
export async function deleteProvisionedUser(
  tx: Transaction<Database>, ctx: RequestContext, userId: string, now: Date, origin: AuditOrigin,
): Promise<void> {
  const locked = await repo.lockForChange(tx, ctx.tenantId, userId);
  const target = requireTarget(locked);
  assertNotLastAdmin(locked, target);
  await repo.deleteUser(tx, ctx.tenantId, userId);
  await writeAudit(tx, ctx, {
    action: 'user.deleted', targetType: 'user', targetId: userId,
    details: { email: target.email, role: target.role, status: target.status, ...origin },
  }, now);
  await emit(tx, ctx.tenantId, 'user.deleted', { id: userId }, now);
}

function userChanges(target: UserRow, wanted: ProvisioningChange): Updateable<UsersTable> {
  const changes: Updateable<UsersTable> = {};
  if (wanted.email !== undefined && wanted.email !== target.email) changes.email = wanted.email;
  if (wanted.display_name !== undefined && wanted.display_name !== target.display_name) changes.display_name = wanted.display_name;
  if (wanted.role !== undefined && wanted.role !== target.role) changes.role = wanted.role;
  const status = nextStatus(target.status, wanted.active);
  if (status !== target.status) changes.status = status;
  return changes;
}

function nextStatus(current: UserStatus, active: boolean | undefined): UserStatus {
  if (active === undefined) return current;
  if (active) return 'active';
  return current === 'active' ? 'inactive' : current;
}

const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

async function recordChanges(
  tx: Transaction<Database>, ctx: RequestContext, before: UserRow, after: UserRow,
  otherChanges: Record<string, unknown>, now: Date, origin: AuditOrigin,
): Promise<void> {
  const target = { targetType: 'user', targetId: after.id };
  const profile: Record<string, unknown> = { ...otherChanges };
  if (after.email !== before.email) profile.previous_email = before.email;
  if (after.display_name !== before.display_name) profile.display_name = { from: before.display_name, to: after.display_name };
  if (Object.keys(profile).length > 0) {
    await writeAudit(tx, ctx, { action: 'user.updated', ...target, details: { email: after.email, ...profile, ...origin } }, now);
  }
  const user = toUserResponse(after);
  if (after.role !== before.role) {
    await writeAudit(tx, ctx, {
      action: 'user.role_changed', ...target, details: { email: after.email, from: before.role, to: after.role, ...origin },
    }, now);
    await emit(tx, ctx.tenantId, 'user.role_changed', user, now);
  }
  if (after.status !== before.status) {
    await writeAudit(tx, ctx, {
      action: 'user.status_changed', ...target, details: { email: after.email, from: before.status, to: after.status, ...origin },
    }, now);
    if (before.status === 'pending') await emit(tx, ctx.tenantId, 'user.activated', user, now);
  }
}
