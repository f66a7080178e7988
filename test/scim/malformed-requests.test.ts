import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { expectScimError, patchOf, PATCH_SCHEMA, scim, type ScimCallOptions, scimToken, USER_SCHEMA } from '../helpers/scim-fixtures.js';

type Case = [what: string, method: string, path: string, options: ScimCallOptions, status: number, scimType?: string];

const user = (attributes: Record<string, unknown>) => ({ body: { schemas: [USER_SCHEMA], userName: 'jane@acme.test', ...attributes } });
const patch = (...operations: unknown[]) => ({ body: patchOf(...operations) });
const filter = (expression: string) => ({ query: { filter: expression } });
const USER = '/Users/:id';

const CASES: Case[] = [
  ['JSON that does not parse', 'POST', '/Users', { payload: '{"schemas": [' }, 400, 'invalidSyntax'],
  ['no body', 'POST', '/Users', {}, 400, 'invalidSyntax'],
  ['an array', 'POST', '/Users', { body: [] }, 400, 'invalidSyntax'],
  ['no schemas', 'POST', '/Users', { body: { userName: 'jane@acme.test' } }, 400, 'invalidSyntax'],
  ['another schema', 'POST', '/Users', { body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], userName: 'j@acme.test' } }, 400, 'invalidSyntax'],
  ['no userName', 'POST', '/Users', user({ userName: undefined }), 400, 'invalidValue'],
  ['a userName that is no email', 'POST', '/Users', user({ userName: 'jane' }), 400, 'invalidValue'],
  ['a userName that is a number', 'POST', '/Users', user({ userName: 5 }), 400, 'invalidValue'],
  ['a NUL in userName', 'POST', '/Users', user({ userName: 'ja\u0000ne@acme.test' }), 400, 'invalidValue'],
  ['a NUL in displayName', 'POST', '/Users', user({ displayName: 'Ja\u0000ne' }), 400, 'invalidValue'],
  ['a displayName too long', 'POST', '/Users', user({ displayName: 'x'.repeat(201) }), 400, 'invalidValue'],
  ['active that is no boolean', 'POST', '/Users', user({ active: 'maybe' }), 400, 'invalidValue'],
  ['an unknown role', 'POST', '/Users', user({ roles: [{ value: 'owner' }] }), 400, 'invalidValue'],
  ['roles that are no list', 'POST', '/Users', user({ roles: 'admin' }), 400, 'invalidValue'],
  ['a name that is a string', 'POST', '/Users', user({ name: 'Jane' }), 400, 'invalidValue'],
  ['text/plain', 'POST', '/Users', { payload: 'userName=jane', contentType: 'text/plain' }, 415],
  ['a PUT without schemas', 'PUT', USER, { body: { userName: 'jane@acme.test' } }, 400, 'invalidSyntax'],
  ['a PUT with an unknown role', 'PUT', USER, user({ roles: [{ value: 'root' }] }), 400, 'invalidValue'],

  ['userName eq without a value', 'GET', '/Users', filter('userName eq'), 400, 'invalidFilter'],
  ['an empty filter', 'GET', '/Users', filter(''), 400, 'invalidFilter'],
  ['an unclosed parenthesis', 'GET', '/Users', filter('(userName eq "a@acme.test"'), 400, 'invalidFilter'],
  ['empty parentheses (which would match every user)', 'GET', '/Users', filter('()'), 400, 'invalidFilter'],
  ['a lone or', 'GET', '/Users', filter('or or'), 400, 'invalidFilter'],
  ['a lone value', 'GET', '/Users', filter('"a@acme.test"'), 400, 'invalidFilter'],
  ['an operator other than eq', 'GET', '/Users', filter('userName sw "a"'), 400, 'invalidFilter'],
  ['not', 'GET', '/Users', filter('not (userName eq "a@acme.test")'), 400, 'invalidFilter'],
  ['present', 'GET', '/Users', filter('userName pr'), 400, 'invalidFilter'],
  ['a number', 'GET', '/Users', filter('userName eq 5'), 400, 'invalidFilter'],
  ['an unsupported attribute', 'GET', '/Users', filter('title eq "Boss"'), 400, 'invalidFilter'],
  ['a sub-attribute', 'GET', '/Users', filter('name.givenName eq "Jane"'), 400, 'invalidFilter'],
  ['a startIndex that is no integer', 'GET', '/Users', { query: { startIndex: 'one' } }, 400, 'invalidValue'],
  ['a count that is no integer', 'GET', '/Users', { query: { count: '1.5' } }, 400, 'invalidValue'],

  ['a PATCH with the wrong schema', 'PATCH', USER, { body: { schemas: [USER_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: false }] } }, 400, 'invalidSyntax'],
  ['a PATCH that is a string', 'PATCH', USER, { body: 'replace' }, 400, 'invalidSyntax'],
  ['no operations', 'PATCH', USER, patch(), 400, 'invalidValue'],
  ['operations that are no list', 'PATCH', USER, { body: { schemas: [PATCH_SCHEMA], Operations: { op: 'replace' } } }, 400, 'invalidValue'],
  ['an unknown op', 'PATCH', USER, patch({ op: 'merge', path: 'active', value: false }), 400, 'invalidSyntax'],
  ['an unknown path', 'PATCH', USER, patch({ op: 'replace', path: 'nickname2', value: 'J' }), 400, 'invalidPath'],
  ['a broken filter in a path', 'PATCH', USER, patch({ op: 'replace', path: 'roles[value eq', value: 'admin' }), 400, 'invalidPath'],
  ['a path that is no string', 'PATCH', USER, patch({ op: 'replace', path: 5, value: 'x' }), 400, 'invalidPath'],
  ['remove without a path', 'PATCH', USER, patch({ op: 'remove' }), 400, 'noTarget'],
  ['add without a value', 'PATCH', USER, patch({ op: 'add', path: 'displayName' }), 400, 'invalidValue'],
  ['a filter that matches nothing', 'PATCH', USER, patch({ op: 'add', path: 'roles[value eq "nobody"].display', value: 'x' }), 400, 'noTarget'],
  ['a read-only attribute', 'PATCH', USER, patch({ op: 'replace', path: 'id', value: '42' }), 400, 'mutability'],
  ['active that is no boolean', 'PATCH', USER, patch({ op: 'Replace', path: 'active', value: 'Maybe' }), 400, 'invalidValue'],
  ['an unknown role', 'PATCH', USER, patch({ op: 'Replace', path: 'roles[primary eq "True"].value', value: 'owner' }), 400, 'invalidValue'],
  ['a userName that is no email', 'PATCH', USER, patch({ op: 'replace', value: { userName: 'jane' } }), 400, 'invalidValue'],
  ['removing userName', 'PATCH', USER, patch({ op: 'remove', path: 'userName' }), 400, 'invalidValue'],

  ['a malformed id', 'GET', '/Users/not-an-id', {}, 404],
  ['an unknown id', 'DELETE', '/Users/0195b1d4-5a6b-7c8d-9e0f-1a2b3c4d5e6f', {}, 404],
  ['an unknown id', 'PATCH', '/Users/0195b1d4-5a6b-7c8d-9e0f-1a2b3c4d5e6f', patch({ op: 'replace', path: 'active', value: false }), 404],
];

describe.each(STORES)('SCIM refuses malformed requests with SCIM errors, never a 500 [%s]', (kind) => {
  let h: Harness;
  let token: string;
  let userId: string;
  beforeAll(async () => {
    h = await Harness.start(kind);
    token = await scimToken(h, await h.tenant());
    userId = (await scim(h, token, 'POST', '/Users', user({ userName: 'john@acme.test' }))).json().id;
  });
  afterAll(async () => h.close());

  it.each(CASES)('%s (%s %s)', async (_what, method, path, options, status, scimType) => {
    const before = (await scim(h, token, 'GET', `/Users/${userId}`)).json();
    const response = await scim(h, token, method, path.replace(':id', userId), options);
    expectScimError(response, status, scimType);
    expect((await scim(h, token, 'GET', `/Users/${userId}`)).json()).toEqual(before);
  });
});
