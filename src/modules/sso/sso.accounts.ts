import type { Transaction } from 'kysely';
import type { Database, Role, UserRow } from '../../kernel/tables/database.js';
import { systemContext, userContext } from '../../kernel/context.js';
import { changeProvisionedUser, createProvisionedUser } from '../users/provisioning.service.js';
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
 * the tenant without an active admin). The users feature applies each change under its rules,
 * audits it (`via: 'sso'`) and emits its event.
 */
export async function memberFor(
  tx: Transaction<Database>, settings: SsoSettingsRow, identity: SsoIdentity, meta: { ip: string; requestId: string }, now: Date,
): Promise<UserRow> {
  const tenantId = settings.tenant_id;
  const role = mappedRole(settings, identity.claims);
  const existing = await tx.selectFrom('users').selectAll().where('tenant_id', '=', tenantId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', identity.email.toLowerCase())).executeTakeFirst();
  if (!existing) {
    if (!role) throw new SsoRefusal('not_member', identity.email);
    const ctx = { ...systemContext(tenantId), actor: { type: 'system' as const, id: null, label: 'single sign-on' }, ...meta };
    return createProvisionedUser(tx, ctx, { email: identity.email, display_name: identity.name, role, active: true }, now, VIA_SSO);
  }
  return changeProvisionedUser(tx, userContext(existing, meta), existing.id, async (current) => {
    if (current.status === 'inactive') throw new SsoRefusal('user_inactive', current.email);
    const demotesLastAdmin = role === 'viewer' && current.role === 'admin' && await activeAdmins(tx, tenantId) <= 1;
    return { active: true, ...(role && !demotesLastAdmin ? { role } : {}) };
  }, now, VIA_SSO);
}

const VIA_SSO = { via: 'sso' };

async function activeAdmins(tx: Transaction<Database>, tenantId: string): Promise<number> {
  const { count } = await tx.selectFrom('users').select((eb) => eb.fn.countAll<string>().as('count'))
    .where('tenant_id', '=', tenantId).where('role', '=', 'admin').where('status', '=', 'active').executeTakeFirstOrThrow();
  return Number(count);
}
