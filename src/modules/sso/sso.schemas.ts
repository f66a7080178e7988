import { type Static, Type } from 'typebox';
import { component, Nullable } from '../../kernel/schemas.js';

const DOMAIN = '^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$';

const DefaultRole = Type.Unsafe<'admin' | 'viewer' | null>({
  type: ['string', 'null'], enum: ['admin', 'viewer', null],
  description: 'The role of a user the role claim does not make an admin; null refuses anyone not already a member',
});

const settingsFields = {
  issuer: Type.String({
    format: 'uri', maxLength: 500, pattern: '^https://',
    description: "The provider's issuer URL (HTTPS); its `/.well-known/openid-configuration` is read from it",
  }),
  client_id: Type.String({ minLength: 1, maxLength: 500 }),
  allowed_domains: Type.Array(Type.String({ pattern: DOMAIN, maxLength: 253 }), {
    minItems: 1, maxItems: 50, uniqueItems: true,
    description: 'Email domains whose users may sign in (stored in lower case); the email must be verified by the provider',
  }),
  role_claim: Type.String({
    minLength: 1, maxLength: 200,
    description: 'The ID token claim that carries the groups or roles (a dotted path reaches into objects: `realm_access.roles`)',
  }),
  admin_values: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
    maxItems: 50, uniqueItems: true,
    description: 'Values of the role claim that make the user an admin',
  }),
  default_role: DefaultRole,
  enforce: Type.Boolean({ description: 'Refuse password sign-in (401 `sso_required`) to everyone but admins' }),
};

export const SsoSettingsSchema = component('SsoSettings', Type.Object({
  ...settingsFields,
  client_secret_set: Type.Boolean({ description: 'A client secret is stored (it is never returned)' }),
  redirect_uri: Type.String({ description: 'The URI to register at the provider as the redirect (callback) URI' }),
  updated_at: Type.String({ format: 'date-time' }),
  updated_by: Nullable(Type.String()),
}), {
  description: "The tenant's OpenID Connect provider; the client secret is never returned.",
  example: {
    issuer: 'https://login.example.com/realms/acme', client_id: 'usage-governance', allowed_domains: ['example.com'],
    role_claim: 'groups', admin_values: ['ugs-admins'], default_role: 'viewer', enforce: false, client_secret_set: true,
    redirect_uri: 'https://ugs.example.com/api/v1/auth/sso/callback', updated_at: '2026-03-01T10:00:00.000Z',
    updated_by: 'admin@example.com',
  },
});
export type SsoSettingsResponse = Static<typeof SsoSettingsSchema>;

export const PutSsoSettingsBody = component('SsoSettingsUpdate', Type.Object({
  issuer: settingsFields.issuer,
  client_id: settingsFields.client_id,
  client_secret: Type.Optional(Type.String({
    minLength: 1, maxLength: 2000, description: 'Required the first time; left out, the stored secret is kept',
  })),
  allowed_domains: settingsFields.allowed_domains,
  role_claim: Type.Optional({ ...settingsFields.role_claim, default: 'groups' }),
  admin_values: Type.Optional({ ...settingsFields.admin_values, default: [] }),
  default_role: Type.Optional({ ...DefaultRole, default: 'viewer' }),
  enforce: Type.Optional({ ...settingsFields.enforce, default: false }),
}), {
  description: 'The whole provider setting (a PUT replaces it); `client_secret` may be left out to keep the stored one.',
  example: {
    issuer: 'https://login.example.com/realms/acme', client_id: 'usage-governance', client_secret: 's3cr3t-from-the-provider',
    allowed_domains: ['example.com'], role_claim: 'groups', admin_values: ['ugs-admins'], default_role: 'viewer', enforce: false,
  },
});
export type PutSsoSettingsInput = Static<typeof PutSsoSettingsBody>;

export const SsoTestBody = component('SsoConnectionTestRequest', Type.Object({
  issuer: Type.Optional(settingsFields.issuer),
}), { description: 'The issuer to try; left out, the stored one.', example: { issuer: 'https://login.example.com/realms/acme' } });

export const SsoTestResult = component('SsoConnectionTest', Type.Object({
  ok: Type.Boolean(),
  issuer: Type.String(),
  message: Type.String({ description: 'What was found, or why the provider could not be used' }),
  authorization_endpoint: Nullable(Type.String()),
  token_endpoint: Nullable(Type.String()),
  jwks_uri: Nullable(Type.String()),
}), {
  description: "The outcome of reading the provider's discovery document and key set.",
  example: {
    ok: true, issuer: 'https://login.example.com/realms/acme', message: 'Discovery document and 2 signing keys read',
    authorization_endpoint: 'https://login.example.com/realms/acme/protocol/openid-connect/auth',
    token_endpoint: 'https://login.example.com/realms/acme/protocol/openid-connect/token',
    jwks_uri: 'https://login.example.com/realms/acme/protocol/openid-connect/certs',
  },
});

const ReturnTo = Type.String({ maxLength: 2000, description: 'A path of the console to open after sign-in (default `/`)' });

export const SsoStartQuery = Type.Object({
  tenant_id: Type.Optional(Type.String({ format: 'uuid' })),
  email: Type.Optional(Type.String({ minLength: 3, maxLength: 320, description: "The user's email; its domain finds the tenant" })),
  return_to: Type.Optional(ReturnTo),
});

export const SsoCallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 2000 })),
  code: Type.Optional(Type.String({ maxLength: 4000 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  iss: Type.Optional(Type.String({ maxLength: 2000 })),
}, { additionalProperties: true });

export const SsoExchangeBody = component('SsoExchangeRequest', Type.Object({
  code: Type.String({ minLength: 1, maxLength: 200 }),
}), { description: 'The one-time code the sign-in callback gave the console.', example: { code: 'ugx_Yk1tZ0xGc0p0bWJ2aVhDSkRqQ2c' } });

