import SCIMMY from 'scimmy';
import validator from 'validator';
import type { Role } from '../../kernel/tables/database.js';
import type { ScimName } from '../../kernel/tables/scim.js';
import { invalidSyntax, invalidValue } from './scim.errors.js';
import { SCIM_USER_SCHEMA } from './scim.schemas.js';

/** A user as a SCIM body describes it; what is undefined was not sent. */
export interface UserInput {
  email: string;
  /** From `displayName`, else `name.formatted`, else the given and family names. */
  displayName?: string | null;
  name?: ScimName | null;
  active?: boolean;
  role?: Role;
  externalId?: string | null;
}

/** The attributes this service keeps (lower case: SCIM attribute names are case-insensitive). */
const KEPT = new Set(['username', 'name', 'displayname', 'active', 'roles', 'externalid']);
/** The core User schema's other attributes (title, phone numbers…): accepted and ignored. */
const IGNORED = new Set(SCIMMY.Schemas.User.definition.attributes.map((attribute) => attribute.name.toLowerCase())
  .filter((name) => !KEPT.has(name) && !['schemas', 'id', 'meta'].includes(name)));
const EXTENSION_PREFIX = 'urn:ietf:params:scim:schemas:extension:';
const MAX_EMAIL_LENGTH = 320;
const MAX_DISPLAY_NAME_LENGTH = 200;
const MAX_EXTERNAL_ID_LENGTH = 255;

/** True for an attribute (or the first name of a path) the service accepts and does not keep. */
export function isIgnoredAttribute(attribute: string): boolean {
  const name = attribute.toLowerCase();
  return name.startsWith(EXTENSION_PREFIX) || IGNORED.has(name);
}

/** The body of a create (POST) or replace (PUT). */
export function readUserBody(body: unknown): UserInput {
  if (!isObject(body)) throw invalidSyntax('The body must be a JSON object');
  if (!Array.isArray(body.schemas) || !body.schemas.includes(SCIM_USER_SCHEMA)) {
    throw invalidSyntax(`The body's schemas must list ${SCIM_USER_SCHEMA}`);
  }
  const kept = Object.fromEntries(Object.entries(body).filter(([key]) => KEPT.has(key.toLowerCase())));
  return readUserResource(coerce({ ...normaliseUserValues(kept), schemas: [SCIM_USER_SCHEMA] }));
}

/**
 * A User resource's kept attributes, checked: the email (unless it is `currentEmail`, accepted
 * when it was stored), the lengths, the role.
 */
export function readUserResource(user: SCIMMY.Schemas.User, currentEmail?: string): UserInput {
  const input: UserInput = { email: user.userName === currentEmail ? currentEmail : readEmail(user.userName) };
  const name = plainName(user.name);
  if (user.name !== undefined) input.name = name;
  if (user.displayName !== undefined || user.name !== undefined) input.displayName = displayNameOf(user.displayName, name);
  if (user.active !== undefined) input.active = user.active;
  const role = roleOf(user.roles);
  if (role) input.role = role;
  if (user.externalId !== undefined) input.externalId = limited(user.externalId, MAX_EXTERNAL_ID_LENGTH, 'externalId');
  return input;
}

/**
 * What identity providers send that the User schema refuses, made acceptable: Entra ID's string
 * booleans (`"False"`) and the `type` of its app role assignments. Only `value` and `primary` of a
 * role matter here.
 */
export function normaliseUserValues(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, normaliseValue(key, value)]));
}

export function normaliseValue(attribute: string, value: unknown): unknown {
  const name = attribute.toLowerCase();
  if (name === 'active') return booleanOf(value);
  if (name === 'roles') return Array.isArray(value) ? value.map(normaliseRole) : normaliseRole(value);
  return value;
}

/** A SCIM User instance of `data`; its type errors are the client's (400 invalidValue). */
function coerce(data: Record<string, unknown>): SCIMMY.Schemas.User {
  try {
    return new SCIMMY.Schemas.User(data, 'in');
  } catch (error) {
    if (error instanceof SCIMMY.Types.Error) throw error;
    throw invalidValue(error instanceof Error ? error.message : 'The user is not a valid SCIM User');
  }
}

function normaliseRole(role: unknown): unknown {
  if (!isObject(role)) return role;
  const kept: Record<string, unknown> = { value: role.value };
  if (role.primary !== undefined) kept.primary = booleanOf(role.primary);
  return kept;
}

function booleanOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const lower = value.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : value;
}

function readEmail(userName: unknown): string {
  const email = typeof userName === 'string' ? userName.trim() : '';
  if (email.length > MAX_EMAIL_LENGTH || !validator.isEmail(email)) {
    throw invalidValue("userName must be the user's email address");
  }
  return email;
}

function roleOf(roles: SCIMMY.Schemas.User['roles']): Role | undefined {
  // A PATCH replacing roles with null leaves an empty entry.
  const entries = (roles ?? []).filter((role) => typeof role === 'object' && role !== null);
  if (entries.length === 0) return undefined;
  const chosen = entries.find((role) => role.primary === true) ?? entries[0]!;
  const value = chosen.value?.trim().toLowerCase();
  if (value === 'admin' || value === 'viewer') return value;
  throw invalidValue(`roles: the role must be admin or viewer, not ${JSON.stringify(chosen.value ?? null)}`);
}

function plainName(name: SCIMMY.Schemas.User['name']): ScimName | null {
  if (!name) return null;
  const plain = JSON.parse(JSON.stringify(name)) as ScimName;
  return Object.keys(plain).length > 0 ? plain : null;
}

function displayNameOf(displayName: string | undefined, name: ScimName | null): string | null {
  const fromParts = [name?.givenName, name?.familyName].map((part) => part?.trim()).filter(Boolean).join(' ');
  const chosen = [displayName, name?.formatted, fromParts].map((value) => value?.trim()).find(Boolean);
  return limited(chosen ?? null, MAX_DISPLAY_NAME_LENGTH, 'displayName');
}

function limited(value: string | null, max: number, attribute: string): string | null {
  if (value === null || value === '') return null;
  if (value.length > max) throw invalidValue(`${attribute} must be at most ${max} characters`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
