import type { components } from '@sdk/generated/openapi.js';

export type SsoSettings = components['schemas']['SsoSettings'];
export type SsoSettingsUpdate = components['schemas']['SsoSettingsUpdate'];
export type DefaultRole = SsoSettings['default_role'];

/** The select's values stand for the API's: `none` is null, nobody new is let in. */
export const DEFAULT_ROLE_CHOICES: [string, DefaultRole, string][] = [
  ['viewer', 'viewer', 'Viewer'],
  ['admin', 'admin', 'Admin'],
  ['none', null, 'Nobody new (members only)'],
];

export const defaultRoleKey = (role: DefaultRole) => DEFAULT_ROLE_CHOICES.find(([, value]) => value === role)?.[0] ?? 'viewer';
export function defaultRoleOf(key: string): DefaultRole {
  const choice = DEFAULT_ROLE_CHOICES.find(([name]) => name === key);
  return choice ? choice[1] : 'viewer';
}

/** A list typed one per line or separated by commas, without blanks or repeats. */
export function parseList(text: string): string[] {
  return [...new Set(text.split(/[\n,]/).map((item) => item.trim()).filter((item) => item !== ''))];
}

export const formatList = (items: string[]) => items.join('\n');

export interface SsoDraft {
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowedDomains: string;
  roleClaim: string;
  adminValues: string;
  defaultRole: string;
  enforce: boolean;
}

export function draftOf(settings: SsoSettings | null): SsoDraft {
  return {
    issuer: settings?.issuer ?? '',
    clientId: settings?.client_id ?? '',
    clientSecret: '',
    allowedDomains: formatList(settings?.allowed_domains ?? []),
    roleClaim: settings?.role_claim ?? 'groups',
    adminValues: formatList(settings?.admin_values ?? []),
    defaultRole: defaultRoleKey(settings ? settings.default_role : 'viewer'),
    enforce: settings?.enforce ?? false,
  };
}

/** The PUT body: the secret only when one was typed (left out, the stored one is kept). */
export function bodyOf(draft: SsoDraft): SsoSettingsUpdate {
  return {
    issuer: draft.issuer.trim(),
    client_id: draft.clientId.trim(),
    ...(draft.clientSecret !== '' ? { client_secret: draft.clientSecret } : {}),
    // The API takes domains in lower case only.
    allowed_domains: parseList(draft.allowedDomains.toLowerCase()),
    role_claim: draft.roleClaim.trim(),
    admin_values: parseList(draft.adminValues),
    default_role: defaultRoleOf(draft.defaultRole),
    enforce: draft.enforce,
  };
}
