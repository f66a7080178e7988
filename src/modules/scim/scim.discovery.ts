import SCIMMY from 'scimmy';
import { MAX_COUNT } from './scim.query.js';
import { listResponse, SCIM_USER_SCHEMA, type ScimListResponse } from './scim.schemas.js';

// SCIM's own discovery (RFC 7644, section 4): what the service supports, its one resource type and
// the attributes of that type it keeps. Identity providers and people read these; the OpenAPI
// document does not describe SCIM.

type Document = Record<string, unknown>;

const SERVICE_PROVIDER_CONFIG_SCHEMA = SCIMMY.Schemas.ServiceProviderConfig.id;
const RESOURCE_TYPE_SCHEMA = SCIMMY.Schemas.ResourceType.id;

/** The User attributes the service keeps; `externalId` (common to every resource) too. */
const USER_ATTRIBUTES = new Set(['userName', 'name', 'displayName', 'active', 'emails', 'roles']);
const ATTRIBUTE_NOTES: Record<string, Document> = {
  userName: { description: "The user's email address, unique in the organization (case-insensitive). REQUIRED." },
  displayName: { description: 'The name the service shows; when absent, name.formatted, else the given and family names.' },
  emails: { mutability: 'readOnly', description: 'The userName, as the work email; what is sent here is ignored.' },
  roles: { description: 'The role in the organization: admin or viewer (the primary entry, else the first; default viewer).' },
};

export function serviceProviderConfig(scimBaseUrl: string): Document {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_COUNT },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [{
      type: 'oauthbearertoken',
      name: 'API key',
      description: 'An API key of the organization with the scope scim, sent as Authorization: Bearer ugk_…',
      primary: true,
    }],
    meta: { resourceType: 'ServiceProviderConfig', location: `${scimBaseUrl}/ServiceProviderConfig` },
  };
}

export function userResourceType(scimBaseUrl: string): Document {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A user of the organization',
    schema: SCIM_USER_SCHEMA,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: `${scimBaseUrl}/ResourceTypes/User` },
  };
}

export function userSchema(scimBaseUrl: string): Document {
  // The library's attributes serialise themselves: plain JSON first.
  const described = JSON.parse(JSON.stringify(SCIMMY.Schemas.User.definition.describe(`${scimBaseUrl}/Schemas`))) as
    Document & { attributes: Document[] };
  const attributes = described.attributes
    .filter((attribute) => USER_ATTRIBUTES.has(attribute.name as string))
    .map((attribute) => ({ ...attribute, ...ATTRIBUTE_NOTES[attribute.name as string] }));
  return { ...described, attributes };
}

export const resourceTypes = (scimBaseUrl: string): ScimListResponse<Document> => listResponse([userResourceType(scimBaseUrl)], 1, 1);
export const schemas = (scimBaseUrl: string): ScimListResponse<Document> => listResponse([userSchema(scimBaseUrl)], 1, 1);
