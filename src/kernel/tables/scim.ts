import type { Json } from './columns.js';

/** The parts of a person's name an identity provider sends (SCIM `name`), kept as sent. */
export interface ScimName {
  formatted?: string;
  familyName?: string;
  givenName?: string;
  middleName?: string;
  honorificPrefix?: string;
  honorificSuffix?: string;
}

/**
 * What SCIM provisioning knows of a user beyond the users table: the identity provider's own id
 * for them (`externalId`) and their name's parts. One row per user it ever set them on; it goes
 * with the user.
 */
export interface ScimUsersTable {
  tenant_id: string;
  user_id: string;
  external_id: string | null;
  name: Json<ScimName> | null;
}

/** Table types of SCIM provisioning; merged into `Database`. */
export interface ScimTables {
  scim_users: ScimUsersTable;
}
