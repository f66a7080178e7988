import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedEvents, Harness } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { invite, STRONG_PASSWORD } from '../helpers/users-fixtures.js';
import {
  apiUser, expectScimError, mark, patchOf, scim, scimEmail, scimToken, USER_SCHEMA, userAuditsSince,
} from '../helpers/scim-fixtures.js';

describe.each(STORES)('SCIM keeps the users rules [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  const create = async (token: string, attributes: Record<string, unknown> = {}) => {
    const response = await scim(h, token, 'POST', '/Users', { body: { schemas: [USER_SCHEMA], userName: scimEmail(), ...attributes } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };

  it('never disables, demotes or deletes the last active admin (409), and does once there is another', async () => {
    const t = await h.tenant();
    const token = await scimToken(h, t);
    const refusals = [
      await scim(h, token, 'PATCH', `/Users/${t.adminId}`, { body: patchOf({ op: 'Replace', path: 'active', value: 'False' }) }),
      await scim(h, token, 'PATCH', `/Users/${t.adminId}`, { body: patchOf({ op: 'replace', path: 'roles', value: [{ value: 'viewer' }] }) }),
      await scim(h, token, 'PUT', `/Users/${t.adminId}`, { body: { schemas: [USER_SCHEMA], userName: t.adminEmail, active: false } }),
      await scim(h, token, 'DELETE', `/Users/${t.adminId}`),
    ];
    for (const refused of refusals) expect(expectScimError(refused, 409).detail).toMatch(/last active admin/);
    expect((await apiUser(h, t, t.adminId)).json()).toMatchObject({ role: 'admin', status: 'active' });

    const second = await create(token, { roles: [{ value: 'Admin', display: 'Admin', type: 'WindowsAzureActiveDirectoryRole' }] });
    expect(second.roles).toEqual([{ value: 'admin', primary: true }]);
    const demoted = await scim(h, token, 'PUT', `/Users/${t.adminId}`, { body: { schemas: [USER_SCHEMA], userName: t.adminEmail, roles: [{ value: 'viewer' }] } });
    expect(demoted.json()).toMatchObject({ roles: [{ value: 'viewer', primary: true }], active: true });
    expectScimError(await scim(h, token, 'DELETE', `/Users/${second.id}`), 409);
  });

  it('keeps userName unique in the organization, case-insensitively (409 uniqueness), and renames otherwise', async () => {
    const t = await h.tenant();
    const token = await scimToken(h, t);
    const invited = await invite(h, t);
    expectScimError(await scim(h, token, 'POST', '/Users', { body: { schemas: [USER_SCHEMA], userName: invited.email.toUpperCase() } }), 409, 'uniqueness');
    const twice = { body: { schemas: [USER_SCHEMA], userName: scimEmail('twice') } };
    const [first, second] = await Promise.all([scim(h, token, 'POST', '/Users', twice), scim(h, token, 'POST', '/Users', twice)]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([201, 409]);
    expectScimError(first.statusCode === 409 ? first : second, 409, 'uniqueness');

    const user = await create(token);
    const taken = await scim(h, token, 'PATCH', `/Users/${user.id}`, { body: patchOf({ op: 'replace', path: 'userName', value: t.adminEmail }) });
    expectScimError(taken, 409, 'uniqueness');

    const since = mark(h);
    const renamed = scimEmail('renamed');
    const response = await scim(h, token, 'PUT', `/Users/${user.id}`, { body: { schemas: [USER_SCHEMA], userName: renamed } });
    expect(response.json()).toMatchObject({ userName: renamed, emails: [{ value: renamed }] });
    expect((await apiUser(h, t, user.id)).json().email).toBe(renamed);
    expect((await userAuditsSince(h, t, since)).map((entry) => entry.details)).toEqual([
      { email: renamed, previous_email: user.userName, via: 'scim' },
    ]);
  });

  it('shows a pending user as not active: active false leaves them pending, active true activates them and withdraws the invitation', async () => {
    const t = await h.tenant();
    const token = await scimToken(h, t);
    const invited = await invite(h, t, { role: 'admin' });
    const shown = (await scim(h, token, 'GET', `/Users/${invited.id}`)).json();
    expect(shown).toMatchObject({ userName: invited.email, active: false, roles: [{ value: 'admin' }] });

    const since = mark(h);
    const kept = await scim(h, token, 'PATCH', `/Users/${invited.id}`, { body: patchOf({ op: 'replace', value: { active: false } }) });
    expect(kept.json()).toEqual(shown);
    expect((await apiUser(h, t, invited.id)).json().status).toBe('pending');

    const activated = await scim(h, token, 'PATCH', `/Users/${invited.id}`, { body: patchOf({ op: 'replace', value: { active: true } }) });
    expect(activated.json().active).toBe(true);
    const body = (await apiUser(h, t, invited.id)).json();
    expect(body).toMatchObject({ status: 'active', role: 'admin' });
    expect(body).not.toHaveProperty('invitation_expires_at');
    expect((await userAuditsSince(h, t, since)).map((entry) => entry.details)).toEqual([
      { email: invited.email, from: 'pending', to: 'active', via: 'scim' },
    ]);
    expect((await capturedEvents(h, t.tenantId, 'user.activated')).map((event) => event.data)).toEqual([body]);
    const accept = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
    expect(accept.statusCode).toBe(404);
  });

  it('creates a disabled user when told to, without activation event; PUT keeps what it leaves out', async () => {
    const t = await h.tenant();
    const token = await scimToken(h, t);
    const user = await create(token, { active: false, roles: [{ value: 'admin' }], externalId: 'okta-1', displayName: 'Ann' });
    expect((await apiUser(h, t, user.id)).json()).toMatchObject({ status: 'inactive', role: 'admin', display_name: 'Ann' });
    expect(await capturedEvents(h, t.tenantId, 'user.activated')).toEqual([]);

    const replaced = await scim(h, token, 'PUT', `/Users/${user.id}`, { body: { schemas: [USER_SCHEMA], userName: user.userName, name: { givenName: 'Ann', familyName: 'Lee' } } });
    expect(replaced.json()).toMatchObject({ active: false, roles: [{ value: 'admin' }], externalId: 'okta-1', displayName: 'Ann Lee' });
    const cleared = await scim(h, token, 'PATCH', `/Users/${user.id}`, { body: patchOf(
      { op: 'remove', path: 'externalId' },
      { op: 'Replace', path: 'roles', value: null },
    ) });
    expect(cleared.json()).not.toHaveProperty('externalId');
    expect(cleared.json().roles).toEqual([{ value: 'viewer', primary: true }]); // no role left: the default
  });
});
