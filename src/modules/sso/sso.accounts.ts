import type { Transaction } from 'kysely';
import type { Database, Role, UserRow } from '../../kernel/tables/database.js';
import { userContext } from '../../kernel/context.js';
import { uuidv7 } from '../../kernel/ids.js';
import { writeAudit } from '../audit/audit.writer.js';
import { emit } from '../../platform/outbox/outbox.js';
import * as invitations from '../users/invitations.repo.js';
import * as repo from '../users/users.repo.js';
import { toUserResponse } from '../users/users.schemas.js';
import { SsoRefusal } from './sso.refusals.js';
import type { SsoSettingsRow } from './sso.settings.js';

export interface SsoIdentity {
  email: string;
  name: string | null;
  claims: Record<string, unknown>;
}

/** The verified email of the ID token, if its domain may sign in to this tenant. */
export function verifiedEmail(settings: SsoSettingsRow, claims: Record<string, unknown>): string {
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  // `xms_edov` is Microsoft Entra ID's "email domain owner verified", which it sends instead of email_verified.
  const verified = claims.email_verified === true || claims.email_verified === 'true' || claims.xms_edov === true;
  if (!email || !verified) throw new SsoRefusal('email_unverified', email || undefined);
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (!email.includes('@') || !settings.allowed_domains.includes(domain)) throw new SsoRefusal('domain_not_allowed', email);
  return email;
}

/** The role the provider's claim gives: admin for one of `admin_values`, else the default (null: members only). */
export function mappedRole(settings: SsoSettingsRow, claims: Record<string, unknown>): Role | null {
  const values = claimValues(claims, settings.role_claim);
  if (values.some((value) => settings.admin_values.includes(value))) return 'admin';
  return settings.default_role;
}

function claimValues(claims: Record<string, unknown>, path: string): string[] {
  let value: unknown = Object.hasOwn(claims, path) ? claims[path] : undefined;
  if (value === undefined) {
    value = path.split('.').reduce<unknown>((node, key) =>
      node !== null && typeof node === 'object' && Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined, claims);
  }
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/**
 * The member this identity signs in as: created `active` at first sign-in (just in time), a
 * pending invitee activated, the role brought in line with the provider's claim (never leaving
 * the tenant without an active admin). Each change is audited and emits its users event.
 */
export async function memberFor(
  tx: Transaction<Database>, settings: SsoSettingsRow, identity: SsoIdentity, meta: { ip: string; requestId: string }, now: Date,
): Promise<UserRow> {
  const tenantId = settings.tenant_id;
  const role = mappedRole(settings, identity.claims);
  const existing = await tx.selectFrom('users').select('id').where('tenant_id', '=', tenantId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', identity.email.toLowerCase())).executeTakeFirst();
  if (!existing) {
    if (!role) throw new SsoRefusal('not_member', identity.email);
    return createMember(tx, tenantId, identity, role, meta, now);
  }
  const locked = await repo.lockForChange(tx, tenantId, existing.id);
  const user = locked.target!;
  if (user.status === 'inactive') throw new SsoRefusal('user_inactive', user.email);
  const ctx = userContext(user, meta);
  let updated = user;
  if (user.status === 'pending') {
    await invitations.deleteInvitations(tx, tenantId, user.id);
    updated = await repo.updateUser(tx, tenantId, user.id, { status: 'active', invitation_expires_at: null, updated_at: now });
    await writeAudit(tx, ctx, { action: 'user.activated', targetType: 'user', targetId: user.id, details: { email: user.email, via: 'sso' } }, now);
    await emit(tx, tenantId, 'user.activated', toUserResponse(updated), now);
  }
  const lastAdmin = user.role === 'admin' && user.status === 'active' && locked.activeAdminIds.length <= 1;
  if (role && role !== updated.role && !(role === 'viewer' && lastAdmin)) {
    updated = await repo.updateUser(tx, tenantId, user.id, { role, updated_at: now });
    await writeAudit(tx, ctx, {
      action: 'user.role_changed', targetType: 'user', targetId: user.id,
      details: { email: user.email, from: user.role, to: role, via: 'sso' },
    }, now);
    await emit(tx, tenantId, 'user.role_changed', toUserResponse(updated), now);
  }
  return updated;
}

async function createMember(
  tx: Transaction<Database>, tenantId: string, identity: SsoIdentity, role: Role, meta: { ip: string; requestId: string }, now: Date,
): Promise<UserRow> {
  const row = await repo.insertUser(tx, {
    tenant_id: tenantId,
    id: uuidv7(now.getTime()),
    email: identity.email,
    display_name: identity.name,
    role,
    status: 'active',
    password_hash: null,
    invited_by: null,
    invitation_expires_at: null,
    created_at: now,
    updated_at: now,
    last_login: null,
  });
  const response = toUserResponse(row);
  await writeAudit(tx, userContext(row, meta), {
    action: 'user.created', targetType: 'user', targetId: row.id, details: { email: row.email, role, via: 'sso' },
  }, now);
  await emit(tx, tenantId, 'user.activated', response, now);
  return row;
}
