import { CompiledQuery } from 'kysely';
import { scopeSetting, type TenantScope } from './tenant-scope.js';

/** The role the service's queries run as: not superuser, not the tables' owner, no BYPASSRLS. */
export const SERVICE_ROLE = 'ugs_app';
/** The setting row-level security reads the current work's tenants from. */
export const TENANTS_SETTING = 'ugs.tenant_ids';

/** What a connection must hold for a scope: the role queries run as, and the tenants they see. */
export interface ScopeSettings {
  role: string;
  tenants: string;
}

export function settingsOf(scope: TenantScope | undefined): ScopeSettings {
  const setting = scopeSetting(scope);
  return { role: setting.owner ? 'none' : SERVICE_ROLE, tenants: setting.tenants };
}

export const sameSettings = (a: ScopeSettings | undefined, b: ScopeSettings): boolean =>
  a !== undefined && a.role === b.role && a.tenants === b.tenants;

/** The settings for the session (`local` false) or for the current transaction only (`local` true). */
export function setSettings(settings: ScopeSettings, local: boolean): CompiledQuery {
  return CompiledQuery.raw(
    `select set_config('role', $1, ${local}), set_config('${TENANTS_SETTING}', $2, ${local})`,
    [settings.role, settings.tenants],
  );
}

// Role names and tenant lists are ids, commas and `*`: nothing to escape, and anything else is refused.
const LITERAL_SAFE = /^[A-Za-z0-9_,*-]*$/;

/**
 * `begin` (as the driver writes it) and the transaction's settings in one simple-protocol message:
 * one round trip, where a parameterised set_config would cost a second.
 */
export function beginWithSettings(begin: string, settings: ScopeSettings): CompiledQuery {
  if (!LITERAL_SAFE.test(settings.role) || !LITERAL_SAFE.test(settings.tenants)) {
    throw new Error('a tenant scope holds characters other than ids, commas and *');
  }
  return CompiledQuery.raw(`${begin}; select set_config('role', '${settings.role}', true), `
    + `set_config('${TENANTS_SETTING}', '${settings.tenants}', true)`);
}

/** Kysely's PostgreSQL driver's own `begin` for these settings. */
export function beginStatement(settings: { isolationLevel?: string; accessMode?: string }): string {
  if (!settings.isolationLevel && !settings.accessMode) return 'begin';
  return ['start transaction', settings.isolationLevel && `isolation level ${settings.isolationLevel}`, settings.accessMode]
    .filter(Boolean).join(' ');
}
