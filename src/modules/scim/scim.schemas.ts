import SCIMMY from 'scimmy';
import type { Role, UserRow } from '../../kernel/tables/database.js';
import type { ScimName } from '../../kernel/tables/scim.js';

export const SCIM_USER_SCHEMA = SCIMMY.Schemas.User.id;
export const SCIM_LIST_SCHEMA = SCIMMY.Messages.ListResponse.id;
export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

/** What SCIM keeps of a user beyond the users table (`scim_users`). */
export interface ScimAttributes {
  external_id: string | null;
  name: ScimName | null;
}

export type ScimUserRow = UserRow & ScimAttributes;

/** A user as SCIM shows it: the resource's attributes this service keeps, nothing else. */
export interface ScimUser {
  schemas: [typeof SCIM_USER_SCHEMA];
  id: string;
  externalId?: string;
  userName: string;
  name?: ScimName;
  displayName?: string;
  active: boolean;
  emails: Array<{ value: string; type: 'work'; primary: true }>;
  roles: Array<{ value: Role; primary: true }>;
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string };
}

export interface ScimListResponse<T> {
  schemas: [typeof SCIM_LIST_SCHEMA];
  totalResults: number;
  itemsPerPage: number;
  startIndex: number;
  Resources: T[];
}

/** `userName` is the email; a pending user (invited, not accepted yet) is not `active`. */
export function toScimUser(row: ScimUserRow, scimBaseUrl: string): ScimUser {
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: row.id,
    ...(row.external_id !== null && { externalId: row.external_id }),
    userName: row.email,
    ...(row.name !== null && Object.keys(row.name).length > 0 && { name: row.name }),
    ...(row.display_name !== null && { displayName: row.display_name }),
    active: row.status === 'active',
    emails: [{ value: row.email, type: 'work', primary: true }],
    roles: [{ value: row.role, primary: true }],
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${scimBaseUrl}/Users/${row.id}`,
    },
  };
}

export function listResponse<T>(resources: T[], totalResults: number, startIndex: number): ScimListResponse<T> {
  return { schemas: [SCIM_LIST_SCHEMA], totalResults, itemsPerPage: resources.length, startIndex, Resources: resources };
}

/** Where SCIM is served: `PUBLIC_BASE_URL/scim/v2`. */
export const scimBaseUrl = (publicBaseUrl: string) => `${publicBaseUrl}/scim/v2`;
