import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedEvents, Harness } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { invite, STRONG_PASSWORD } from '../helpers/users-fixtures.js';
import {
  apiUser, ENTERPRISE_SCHEMA, findByUserName, mark, patchOf, scim, scimEmail, scimToken, sessionOf, sessionWorks,
  USER_SCHEMA, userAuditsSince,
} from '../helpers/scim-fixtures.js';

// The requests Microsoft Entra ID sends: a lookup by userName, a POST with the enterprise extension,
// PATCHes with capitalised ops, string booleans and filtered paths, then the DELETE.
describe.each(STORES)('SCIM as Entra ID provisions [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  it('creates, finds, updates, disables (the session stops at once), enables and deletes a user', async () => {
    const t = await h.tenant();
    const token = await scimToken(h, t);
    const email = scimEmail('adele');
    expect((await findByUserName(h, token, email)).totalResults).toBe(0);

    let since = mark(h);
    const created = await scim(h, token, 'POST', '/Users', { body: {
      schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
      externalId: '0a1b2c3d-entra-object-id',
      userName: email,
      active: true,
      displayName: 'Adele Vance',
      emails: [{ primary: true, type: 'work', value: email }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Adele Vance', familyName: 'Vance', givenName: 'Adele' },
      title: 'Retail Manager',
      [ENTERPRISE_SCHEMA]: { department: 'Retail', employeeNumber: '42' },
    } });
    expect(created.statusCode, created.body).toBe(201);
    const user = created.json();
    expect(created.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(created.headers.location).toBe(`http://localhost:8080/scim/v2/Users/${user.id}`);
    expect(user).toEqual({
      schemas: [USER_SCHEMA], id: expect.any(String), externalId: '0a1b2c3d-entra-object-id', userName: email,
      name: { formatted: 'Adele Vance', familyName: 'Vance', givenName: 'Adele' }, displayName: 'Adele Vance', active: true,
      emails: [{ value: email, type: 'work', primary: true }], roles: [{ value: 'viewer', primary: true }],
      meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String), location: created.headers.location },
    });
    expect((await apiUser(h, t, user.id)).json()).toMatchObject({
      email, display_name: 'Adele Vance', role: 'viewer', status: 'active', invited_by: null, last_login: null,
    });
    expect(await userAuditsSince(h, t, since)).toEqual([expect.objectContaining({
      action: 'user.created', actor_type: 'api_key', actor_label: 'test key', target_id: user.id,
      details: { email, role: 'viewer', status: 'active', via: 'scim', external_id: '0a1b2c3d-entra-object-id' },
    })]);
    expect(await capturedEvents(h, t.tenantId, 'user.activated')).toEqual([
      { type: 'user.activated', data: (await apiUser(h, t, user.id)).json() },
    ]);

    const found = await findByUserName(h, token, email.toUpperCase());
    expect(found).toMatchObject({ totalResults: 1, itemsPerPage: 1, startIndex: 1, Resources: [user] });
    expect((await scim(h, token, 'GET', `/Users/${user.id}`)).json()).toEqual(user);

    since = mark(h);
    const updated = await scim(h, token, 'PATCH', `/Users/${user.id}`, { body: patchOf(
      { op: 'Replace', path: 'displayName', value: 'Adele V.' },
      { op: 'Replace', path: 'name.givenName', value: 'Adèle' },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: email },
      { op: 'Add', path: 'roles[primary eq "True"].value', value: 'Admin' },
      { op: 'Add', path: `${ENTERPRISE_SCHEMA}:department`, value: 'Sales' },
      { op: 'Replace', path: 'title', value: 'Sales Manager' },
    ) });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({
      displayName: 'Adele V.', name: { givenName: 'Adèle', familyName: 'Vance' }, roles: [{ value: 'admin', primary: true }],
    });
    expect((await apiUser(h, t, user.id)).json()).toMatchObject({ display_name: 'Adele V.', role: 'admin' });
    const changes = await userAuditsSince(h, t, since);
    expect(changes.map((entry) => entry.action).sort()).toEqual(['user.role_changed', 'user.updated']);
    expect(changes.find((entry) => entry.action === 'user.role_changed')!.details).toEqual({ email, from: 'viewer', to: 'admin', via: 'scim' });
    expect(changes.find((entry) => entry.action === 'user.updated')!.details).toMatchObject({
      email, display_name: { from: 'Adele Vance', to: 'Adele V.' }, name: { to: { givenName: 'Adèle' } }, via: 'scim',
    });
    expect((await capturedEvents(h, t.tenantId, 'user.role_changed')).map((event) => event.data.role)).toEqual(['admin']);

    const session = await sessionOf(h, t.tenantId, user.id);
    expect(await sessionWorks(h, session)).toBe(true);
    since = mark(h);
    const disabled = await scim(h, token, 'PATCH', `/Users/${user.id}`, { body: patchOf({ op: 'Replace', path: 'active', value: 'False' }) });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect(disabled.json().active).toBe(false);
    expect(await sessionWorks(h, session)).toBe(false);
    expect((await apiUser(h, t, user.id)).json().status).toBe('inactive');
    expect((await userAuditsSince(h, t, since)).map(({ action, details }) => ({ action, details }))).toEqual([
      { action: 'user.status_changed', details: { email, from: 'active', to: 'inactive', via: 'scim' } },
    ]);

    const enabled = await scim(h, token, 'PATCH', `/Users/${user.id}`, { body: patchOf({ op: 'Replace', path: 'active', value: 'True' }) });
    expect(enabled.json().active).toBe(true);
    expect((await apiUser(h, t, user.id)).json().status).toBe('active');
    expect(await sessionWorks(h, session)).toBe(false); // revoked for good: the user signs in again

    since = mark(h);
    const deleted = await scim(h, token, 'DELETE', `/Users/${user.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await scim(h, token, 'GET', `/Users/${user.id}`)).statusCode).toBe(404);
    expect((await apiUser(h, t, user.id)).statusCode).toBe(404);
    expect((await findByUserName(h, token, email)).totalResults).toBe(0);
    expect((await userAuditsSince(h, t, since)).map(({ action, details }) => ({ action, details }))).toEqual([
      { action: 'user.deleted', details: { email, role: 'admin', status: 'active', via: 'scim' } },
    ]);
    expect(await capturedEvents(h, t.tenantId, 'user.deleted')).toEqual([{ type: 'user.deleted', data: { id: user.id } }]);
  });

  it('matches a user who accepted an invitation, takes them over and disables them: their session stops at once', async () => {
    const t = await h.tenant();
    const token = await scimToken(h, t);
    const invited = await invite(h, t);
    const accepted = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const session = accepted.json().token as string;

    const [match] = (await findByUserName(h, token, invited.email)).Resources;
    expect(match).toMatchObject({ id: invited.id, userName: invited.email, active: true });
    expect(match).not.toHaveProperty('externalId');
    const linked = await scim(h, token, 'PATCH', `/Users/${invited.id}`, {
      body: patchOf({ op: 'Add', path: 'externalId', value: 'entra-object-7' }),
    });
    expect(linked.json().externalId).toBe('entra-object-7');
    const byExternalId = await scim(h, token, 'GET', '/Users', { query: { filter: 'externalId eq "entra-object-7"' } });
    expect(byExternalId.json().Resources.map((user: { id: string }) => user.id)).toEqual([invited.id]);

    expect(await sessionWorks(h, session)).toBe(true);
    await scim(h, token, 'PATCH', `/Users/${invited.id}`, { body: patchOf({ op: 'Replace', path: 'active', value: 'False' }) });
    expect(await sessionWorks(h, session)).toBe(false);
    expect((await h.call('POST', '/api/v1/auth/login', { body: { email: invited.email, password: STRONG_PASSWORD } })).statusCode)
      .toBe(401);
  });
});
