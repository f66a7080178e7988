import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { clearOfWindowEnd, rateLimitHeaders } from '../helpers/rate-limit-windows.js';
import { STORES } from '../helpers/stores.js';
import { expectScimError, findByUserName, patchOf, scim, scimEmail, scimToken, USER_SCHEMA } from '../helpers/scim-fixtures.js';

const newUser = () => ({ schemas: [USER_SCHEMA], userName: scimEmail() });

describe.each(STORES)('SCIM access [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  it('answers 401 without a known bearer token, before reading the body', async () => {
    const t = await h.tenant();
    const revoked = await h.call('POST', '/api/v1/api-keys', { token: t.adminToken, body: { name: 'old', scopes: ['scim'] } });
    await h.call('DELETE', `/api/v1/api-keys/${revoked.json().id}`, { token: t.adminToken });
    for (const authorization of [undefined, 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ugk_unknown', `Bearer ${revoked.json().key}`]) {
      const headers = authorization ? { authorization } : {};
      const response = await h.app.inject({ method: 'POST', url: '/scim/v2/Users', headers: { ...headers, 'content-type': 'application/scim+json' }, payload: '{not json' });
      expectScimError(response, 401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="scim"');
    }
  });

  it('answers 403 to an API key without the scope scim and to a user session, even an admin\'s; a scim key opens nothing else', async () => {
    const t = await h.tenant();
    const otherKey = await h.apiKey(t, ['interactions:write', 'interactions:read']);
    for (const token of [otherKey, t.adminToken]) {
      expect(expectScimError(await scim(h, token, 'GET', '/Users'), 403).detail).toMatch(/scope scim/);
      expectScimError(await scim(h, token, 'POST', '/Users', { body: newUser() }), 403);
      expectScimError(await scim(h, token, 'GET', '/ServiceProviderConfig'), 403);
    }
    const users = await h.call('GET', '/api/v1/users', { token: t.adminToken });
    expect(users.json().total).toBe(1);

    const token = await scimToken(h, t);
    for (const [method, url] of [['GET', '/api/v1/users'], ['POST', '/api/v1/users/invite'], ['GET', '/api/v1/interactions'], ['GET', '/api/v1/audit-log']]) {
      expect((await h.call(method!, url!, { token, body: method === 'POST' ? { email: scimEmail(), role: 'admin' } : undefined })).statusCode).toBe(403);
    }
  });

  it('sees only its own tenant: another tenant\'s user is 404 to every method and never found by a filter', async () => {
    const mine = await h.tenant();
    const theirs = await h.tenant('Globex');
    const token = await scimToken(h, mine);
    const theirUser = (await scim(h, await scimToken(h, theirs), 'POST', '/Users', { body: newUser() })).json();

    expectScimError(await scim(h, token, 'GET', `/Users/${theirUser.id}`), 404);
    expectScimError(await scim(h, token, 'PUT', `/Users/${theirUser.id}`, { body: { ...newUser(), userName: theirUser.userName } }), 404);
    expectScimError(await scim(h, token, 'PATCH', `/Users/${theirUser.id}`, { body: patchOf({ op: 'replace', path: 'active', value: false }) }), 404);
    expectScimError(await scim(h, token, 'DELETE', `/Users/${theirUser.id}`), 404);
    expectScimError(await scim(h, token, 'GET', `/Users/${theirs.adminId}`), 404);
    expect((await findByUserName(h, token, theirUser.userName)).totalResults).toBe(0);
    expect((await findByUserName(h, token, theirs.adminEmail)).totalResults).toBe(0);
    const all = (await scim(h, token, 'GET', '/Users')).json();
    expect(all.Resources.map((user: { id: string }) => user.id)).toEqual([mine.adminId]);

    const unchanged = await h.call('GET', `/api/v1/users/${theirUser.id}`, { token: theirs.adminToken });
    expect(unchanged.json()).toMatchObject({ status: 'active', email: theirUser.userName });
    // The same email may exist in two organizations.
    const twin = await scim(h, token, 'POST', '/Users', { body: { ...newUser(), userName: theirUser.userName } });
    expect(twin.statusCode).toBe(201);
  });
});

describe.each(STORES)('SCIM rate limit [%s]', (kind) => {
  const LIMIT = 4;
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(async () => h.close());

  it('counts SCIM requests with the key\'s API requests; past the limit a SCIM 429 with Retry-After', async () => {
    const t = await h.tenant();
    await clearOfWindowEnd(10_000);
    const token = await scimToken(h, t);
    expect((await h.call('GET', '/api/v1/interactions', { token })).statusCode).toBe(403); // counted all the same
    const answers = [];
    for (let i = 0; i < LIMIT; i += 1) answers.push(await scim(h, token, 'GET', '/Users'));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
    expect(rateLimitHeaders(answers[0]!.headers)).toMatchObject({ limit: LIMIT, remaining: LIMIT - 2 });
    const limited = answers[LIMIT - 1]!;
    expectScimError(limited, 429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
