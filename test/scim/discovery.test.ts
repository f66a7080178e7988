import SCIMMY from 'scimmy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { expectScimError, LIST_SCHEMA, scim, scimToken, USER_SCHEMA } from '../helpers/scim-fixtures.js';

const BASE = 'http://localhost:8080/scim/v2';

describe.each(STORES)('SCIM discovery [%s]', (kind) => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await Harness.start(kind);
    token = await scimToken(h, await h.tenant());
  });
  afterAll(async () => h.close());

  const get = async (path: string) => {
    const response = await scim(h, token, 'GET', path);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/scim\+json/);
    return response.json();
  };

  it('describes what the service supports: PATCH and filters, no bulk, sort, etag or password change', async () => {
    const config = await get('/ServiceProviderConfig');
    expect(() => new SCIMMY.Schemas.ServiceProviderConfig(config)).not.toThrow();
    expect(config).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true }, filter: { supported: true, maxResults: 200 }, bulk: { supported: false },
      sort: { supported: false }, etag: { supported: false }, changePassword: { supported: false },
      authenticationSchemes: [{ type: 'oauthbearertoken', primary: true }],
      meta: { resourceType: 'ServiceProviderConfig', location: `${BASE}/ServiceProviderConfig` },
    });
  });

  it('lists one resource type, User, and its schema with the attributes the service keeps', async () => {
    const types = await get('/ResourceTypes');
    expect(types).toMatchObject({ schemas: [LIST_SCHEMA], totalResults: 1, Resources: [{ id: 'User', endpoint: '/Users', schema: USER_SCHEMA }] });
    expect(() => new SCIMMY.Schemas.ResourceType(types.Resources[0])).not.toThrow();
    expect(await get('/ResourceTypes/User')).toEqual(types.Resources[0]);

    const schemas = await get('/Schemas');
    expect(schemas).toMatchObject({ schemas: [LIST_SCHEMA], totalResults: 1, Resources: [{ id: USER_SCHEMA, name: 'User' }] });
    const [user] = schemas.Resources;
    expect(user.schemas).toEqual(['urn:ietf:params:scim:schemas:core:2.0:Schema']);
    expect(user.meta).toEqual({ resourceType: 'Schema', location: `${BASE}/Schemas/${USER_SCHEMA}` });
    expect(user.attributes.map((attribute: { name: string }) => attribute.name)).toEqual(['userName', 'name', 'displayName', 'active', 'emails', 'roles']);
    for (const attribute of user.attributes) {
      expect(attribute).toMatchObject({ type: expect.any(String), multiValued: expect.any(Boolean), mutability: expect.any(String) });
    }
    expect(await get(`/Schemas/${USER_SCHEMA}`)).toEqual(user);
  });

  it('answers what it does not serve with a SCIM 404, and stays out of the OpenAPI document', async () => {
    expectScimError(await scim(h, token, 'GET', '/ResourceTypes/Group'), 404);
    expectScimError(await scim(h, token, 'GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group'), 404);
    expectScimError(await scim(h, token, 'GET', '/Groups'), 404);
    expectScimError(await scim(h, token, 'POST', '/Bulk', { body: {} }), 404);
    const document = (await h.call('GET', '/api/v1/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.includes('scim'))).toEqual([]);
  });
});
