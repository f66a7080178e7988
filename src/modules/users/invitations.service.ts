import type { Transaction } from 'kysely';
import type { Deps } from '../../platform/deps.js';
import type { Database, UserRow } from '../../kernel/tables/database.js';
import { type RequestContext, userContext } from '../../kernel/context.js';
import { AppError, notFound } from '../../kernel/errors.js';
import { uuidv7 } from '../../kernel/ids.js';
import { hashPassword } from '../../kernel/passwords.js';
import { writeAudit } from '../audit/audit.writer.js';
import { createSession } from '../../platform/identity/sessions.js';
import { emit } from '../../platform/outbox/outbox.js';
import { queueMail } from '../mail/mail.queue.js';
import * as invitations from './invitations.repo.js';
import { assertStrongPassword, assertUserId, emailTaken } from './users.guards.js';
import * as repo from './users.repo.js';
import { toUserResponse, type AcceptInviteInput, type InviteInput, type LoginResult, type UserResponse } from './users.schemas.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { ALL_TENANTS, onlyTenants } from '../../platform/store/tenant-scope.js';

const UNIQUE_VIOLATION = '23505';

/** Creates a `pending` user and queues the invitation email; both exist only if the transaction commits. */
export async function inviteUser(deps: Deps, ctx: RequestContext, input: InviteInput): Promise<UserResponse> {
  const now = deps.clock.now();
  const expiresAt = invitations.invitationExpiry(now);
  try {
    return await deps.store.db.transaction().execute(async (tx) => {
      if (await repo.emailInUse(tx, ctx.tenantId, input.email)) throw emailTaken();
      const row = await repo.insertUser(tx, {
        tenant_id: ctx.tenantId,
        id: uuidv7(now.getTime()),
        email: input.email,
        display_name: input.display_name ?? null,
        role: input.role,
        status: 'pending',
        password_hash: null,
        invited_by: ctx.actor.label,
        invitation_expires_at: expiresAt,
        created_at: now,
        updated_at: now,
        last_login: null,
      });
      await sendInvitation(deps, tx, row, now, expiresAt);
      const user = toUserResponse(row);
      await writeAudit(tx, ctx, {
        action: 'user.invited', targetType: 'user', targetId: row.id, details: { email: row.email, role: row.role },
      }, now);
      await emit(tx, ctx.tenantId, 'user.invited', user, now);
      return user;
    });
  } catch (error) {
    // Two invites of one email at once: the unique index (tenant_id, lower(email)) decides.
    if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw emailTaken();
    throw error;
  }
}

/** A new 7-day link for a pending user; every earlier link stops working. */
export async function resendInvitation(deps: Deps, ctx: RequestContext, userId: string): Promise<UserResponse> {
  assertUserId(userId);
  const now = deps.clock.now();
  const expiresAt = invitations.invitationExpiry(now);
  return deps.store.db.transaction().execute(async (tx) => {
    const target = await repo.lockUser(tx, ctx.tenantId, userId);
    if (!target) throw notFound('User');
    if (target.status !== 'pending') {
      throw new AppError('invalid_state', `The user is ${target.status}; only pending users have an invitation to resend`);
    }
    const updated = await repo.updateUser(tx, ctx.tenantId, userId, { invitation_expires_at: expiresAt, updated_at: now });
    await sendInvitation(deps, tx, updated, now, expiresAt);
    await writeAudit(tx, ctx, {
      action: 'user.invitation_resent', targetType: 'user', targetId: userId,
      details: { email: target.email, expires_at: expiresAt.toISOString() },
    }, now);
    return toUserResponse(updated);
  });
}

async function sendInvitation(deps: Deps, tx: Transaction<Database>, user: UserRow, now: Date, expiresAt: Date) {
  const token = await invitations.issueInvitation(tx, user.tenant_id, user.id, now, expiresAt);
  const organization = await repo.tenantName(tx, user.tenant_id);
  const link = `${deps.config.server.publicBaseUrl}/accept-invite?token=${encodeURIComponent(token)}`;
  await queueMail(tx, user.tenant_id, {
    to: user.email,
    subject: `You are invited to ${organization}`,
    text: [
      `${user.invited_by ?? 'An administrator'} invited you to ${organization} as ${user.role}.`,
      '',
      'Accept the invitation and choose your password:',
      link,
      '',
      `The link works once and expires on ${expiresAt.toISOString()}.`,
    ].join('\n'),
  }, now);
}

/**
 * Activates the invited user and logs them in. Unknown or used token: 404; past 7 days: 410 and
 * the user stays `pending` (an admin can resend).
 */
export async function acceptInvitation(
  deps: Deps,
  input: AcceptInviteInput,
  meta: { ip: string; requestId: string },
): Promise<LoginResult> {
  const now = deps.clock.now();
  // The token names the invitation, whichever tenant holds it.
  const invitation = await invitations.findInvitationByToken(inFixedScope(deps.store.db, ALL_TENANTS), input.token);
  if (!invitation) throw notFound('Invitation');
  if (invitation.expires_at.getTime() <= now.getTime()) {
    throw new AppError('invitation_expired', 'The invitation is older than 7 days; ask an admin to resend it');
  }
  assertStrongPassword('body.password', input.password);
  const passwordHash = await hashPassword(input.password);

  return inFixedScope(deps.store.db, onlyTenants([invitation.tenant_id])).transaction().execute(async (tx) => {
    // Locks in the order resend and delete use (user, then invitation), so they cannot deadlock.
    // Accepting twice at once: the second waits on the user row, then finds the invitation gone.
    const user = await repo.lockUser(tx, invitation.tenant_id, invitation.user_id);
    if (!user || user.status !== 'pending') throw notFound('Invitation');
    if (!(await invitations.lockInvitation(tx, invitation))) throw notFound('Invitation');
    const updated = await repo.updateUser(tx, user.tenant_id, user.id, {
      status: 'active',
      password_hash: passwordHash,
      display_name: input.display_name ?? user.display_name,
      invitation_expires_at: null,
      last_login: now,
      updated_at: now,
    });
    await invitations.deleteInvitations(tx, user.tenant_id, user.id);
    const session = await createSession(tx, user.tenant_id, user.id, now, deps.config.auth.sessionTtlSeconds);
    const response = toUserResponse(updated);
    const ctx = userContext(updated, meta);
    await writeAudit(tx, ctx, { action: 'user.invitation_accepted', targetType: 'user', targetId: user.id, details: { email: user.email } }, now);
    await writeAudit(tx, ctx, { action: 'auth.login', targetType: 'user', targetId: user.id, details: { via: 'accept-invite' } }, now);
    await emit(tx, user.tenant_id, 'user.activated', response, now);
    return { token: session.token, token_type: 'Bearer', expires_at: session.expiresAt.toISOString(), user: response };
  });
}
