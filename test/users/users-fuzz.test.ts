import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { invite } from '../helpers/users-fixtures.js';

const FIELDS = ['email', 'role', 'display_name', 'status', 'new_password', 'password', 'token', 'id', '__proto__', 'constructor'];
const QUERY_KEYS = ['page', 'limit', 'role', 'status', 'sort', 'x'];

/** Values that tend to break things: huge and odd numbers, odd strings, nesting. */
const nasty = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom('admin', 'viewer', 'active', 'inactive', 'pending', 'Str0ng-Password-1', 'a@b.co', '', '\u0000', 'ä'.repeat(300)),
  fc.constantFrom(1e308, -1, 0, 2 ** 63, Number.MAX_SAFE_INTEGER + 2, 0.5),
  fc.string({ maxLength: 400 }),
);
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), nasty, { maxKeys: 4 }),
  fc.jsonValue(),
);
const queryValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('1', '0', '-1', '500', '501', '1e309', '9007199254740993', 'NaN', 'Infinity', '1.5', 'email', '-email', '-created_at'),
);
const query = fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), queryValue), { maxLength: 5 })
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

describe.each(STORES)('users endpoints under random input [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let ids: string[];
  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const pending = await invite(h, t);
    ids = [viewer.id, pending.id, t.adminId, 'me', 'not-a-uuid', '%00', '00000000-0000-0000-0000-000000000000'];
  });
  afterAll(async () => h.close());

  const expectNo5xx = (response: { statusCode: number; body: string }, label: string) => {
    expect(response.statusCode, `${label} -> ${response.body}`).toBeLessThan(500);
  };

  it('never answers 5xx to random bodies', async () => {
    const routes = (id: string): Array<[string, string]> => [
      ['POST', '/api/v1/users/invite'],
      ['PUT', `/api/v1/users/${id}`],
      ['PATCH', `/api/v1/users/${id}/status`],
      ['POST', `/api/v1/users/${id}/reset-password`],
      ['POST', `/api/v1/users/${id}/resend-invitation`],
      ['PUT', '/api/v1/users/me'],
      ['POST', '/api/v1/auth/accept-invite'],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ids), fc.nat(6), body, async (id, index, payload) => {
        const [method, url] = routes(id)[index]!;
        const response = await h.call(method, url, { token: t.adminToken, body: payload });
        expectNo5xx(response, `${method} ${url} ${JSON.stringify(payload)}`);
      }),
      { numRuns: 300 },
    );
  });

  it('never answers 5xx to bodies that are not JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
        async (raw, contentType) => {
          const response = await h.app.inject({
            method: 'PUT', url: '/api/v1/users/me', payload: raw,
            headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
          });
          expectNo5xx(response, `${contentType} ${JSON.stringify(raw)}`);
        }),
      { numRuns: 100 },
    );
  });

  it('never answers 5xx to random query strings and path ids', async () => {
    await fc.assert(
      fc.asyncProperty(query, fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 60 })), async (qs, rawId) => {
        const list = await h.call('GET', `/api/v1/users?${qs}`, { token: t.adminToken });
        expectNo5xx(list, `GET /users?${qs}`);
        if (list.statusCode === 200) expect(list.headers['x-total-count']).toBeDefined();
        const one = await h.call('GET', `/api/v1/users/${encodeURIComponent(rawId)}?${qs}`, { token: t.adminToken });
        expectNo5xx(one, `GET /users/${rawId}`);
      }),
      { numRuns: 300 },
    );
  });
});
