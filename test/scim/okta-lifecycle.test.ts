import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedEvents, Harness } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import {
  apiUser, mark, patchOf, scim, scimEmail, scimToken, sessionOf, sessionWorks, USER_SCHEMA, userAuditsSince,
} from '../helpers/scim-fixtures.js';

// The requests Okta sends: a paged lookup by userName, a POST with a password and groups, PUTs of
// the whole profile, PATCHes without a path to deactivate and reactivate, then a DELETE.
describe.each(STORES)('SCIM as Okta provisions [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  const lookup = (token: string, email: string) =>
    scim(h, token, 'GET', '/Users', { query: { filter: `userName eq "${email}"`, startIndex: '1', count: '100' } });

  it('creates, finds, replaces, deactivates (the session stops at once), reactivates and deletes a user', async () => {
    const t = await h.tenant();
    const token = await scimToken(h, t);
    const email = scimEmail('test.user');
    expect((await lookup(token, email)).json()).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, itemsPerPage: 0, startIndex: 1, Resources: [],
    });

    const profile = {
      schemas: [USER_SCHEMA], userName: email, name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: email, type: 'work' }], displayName: 'Test User', locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7', groups: [], active: true,
    };
    const created = await scim(h, token, 'POST', '/Users', { body: { ...profile, password: '1mz050nq' }, contentType: 'application/json' });
    expect(created.statusCode, created.body).toBe(201);
    const user = created.json();
    expect(user).toMatchObject({ userName: email, displayName: 'Test User', active: true, externalId: '00ujl29u0le5T6Aj10h7' });
    expect(user).not.toHaveProperty('password');
    expect(await h.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirst())
      .toEqual({ password_hash: null });
    expect((await h.call('POST', '/api/v1/auth/login', { body: { email, password: '1mz050nq' } })).statusCode).toBe(401);
    expect((await lookup(token, email)).json()).toMatchObject({ totalResults: 1, Resources: [user] });

    let since = mark(h);
    const replaced = await scim(h, token, 'PUT', `/Users/${user.id}`, { body: {
      ...profile, id: user.id, name: { givenName: 'Tess', familyName: 'User' }, displayName: 'Tess User',
    } });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({ displayName: 'Tess User', name: { givenName: 'Tess', familyName: 'User' }, active: true });
    expect((await apiUser(h, t, user.id)).json()).toMatchObject({ display_name: 'Tess User', role: 'viewer', status: 'active' });
    expect((await userAuditsSince(h, t, since)).map(({ action, details }) => ({ action, details }))).toEqual([{
      action: 'user.updated',
      details: {
        email, display_name: { from: 'Test User', to: 'Tess User' }, via: 'scim',
        name: { from: { givenName: 'Test', familyName: 'User' }, to: { givenName: 'Tess', familyName: 'User' } },
      },
    }]);
    const again = await scim(h, token, 'PUT', `/Users/${user.id}`, { body: { ...profile, name: { givenName: 'Tess', familyName: 'User' }, displayName: 'Tess User' } });
    expect(again.json()).toEqual(replaced.json()); // nothing changed: no entry, the same lastModified

    const session = await sessionOf(h, t.tenantId, user.id);
    expect(await sessionWorks(h, session)).toBe(true);
    since = mark(h);
    const deactivated = await scim(h, token, 'PATCH', `/Users/${user.id}`, { body: patchOf({ op: 'replace', value: { active: false } }) });
    expect(deactivated.statusCode, deactivated.body).toBe(200);
    expect(deactivated.json().active).toBe(false);
    expect(await sessionWorks(h, session)).toBe(false);
    expect((await apiUser(h, t, user.id)).json().status).toBe('inactive');
    expect((await userAuditsSince(h, t, since)).map((entry) => [entry.action, entry.details.to])).toEqual([['user.status_changed', 'inactive']]);

    const reactivated = await scim(h, token, 'PATCH', `/Users/${user.id}`, { body: patchOf({ op: 'replace', value: { active: true } }) });
    expect(reactivated.json().active).toBe(true);
    expect((await apiUser(h, t, user.id)).json().status).toBe('active');
    // Okta pushes passwords when told to: there is none to keep, sign-in is single sign-on.
    const password = await scim(h, token, 'PATCH', `/Users/${user.id}`, { body: patchOf({ op: 'replace', value: { password: 'x-9Yq2' } }) });
    expect(password.statusCode).toBe(200);
    expect(await h.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirst())
      .toEqual({ password_hash: null });

    since = mark(h);
    expect((await scim(h, token, 'DELETE', `/Users/${user.id}`)).statusCode).toBe(204);
    expect((await apiUser(h, t, user.id)).statusCode).toBe(404);
    expect((await lookup(token, email)).json().totalResults).toBe(0);
    expect((await userAuditsSince(h, t, since)).map((entry) => entry.action)).toEqual(['user.deleted']);
    expect((await capturedEvents(h, t.tenantId)).map((event) => event.type)).toEqual(['user.activated', 'user.deleted']);
  });
});
