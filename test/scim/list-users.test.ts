import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { LIST_SCHEMA, scim, scimEmail, scimToken, USER_SCHEMA } from '../helpers/scim-fixtures.js';

describe.each(STORES)('SCIM lists users [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let token: string;
  let users: Array<{ id: string; userName: string; externalId: string }>;
  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant();
    token = await scimToken(h, t);
    users = [];
    for (let i = 0; i < 4; i += 1) {
      h.clock.advance(1000);
      const body = { schemas: [USER_SCHEMA], userName: scimEmail(`list${i}`), externalId: `ext-${i}` };
      users.push((await scim(h, token, 'POST', '/Users', { body })).json());
    }
  });
  afterAll(async () => h.close());

  const list = async (query: Record<string, string>) => {
    const response = await scim(h, token, 'GET', '/Users', { query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { schemas: string[]; totalResults: number; itemsPerPage: number; startIndex: number; Resources: Array<{ id: string }> };
  };
  const ids = (body: { Resources: Array<{ id: string }> }) => body.Resources.map((user) => user.id);

  it('pages oldest first with startIndex (1-based) and count (default 100, at most 200)', async () => {
    const all = await list({});
    expect(all).toMatchObject({ schemas: [LIST_SCHEMA], totalResults: 5, itemsPerPage: 5, startIndex: 1 });
    expect(ids(all)).toEqual([t.adminId, ...users.map((user) => user.id)]);

    const second = await list({ startIndex: '3', count: '2' });
    expect(second).toMatchObject({ totalResults: 5, itemsPerPage: 2, startIndex: 3 });
    expect(ids(second)).toEqual([users[1]!.id, users[2]!.id]);
    expect(await list({ startIndex: '6' })).toMatchObject({ totalResults: 5, itemsPerPage: 0, startIndex: 6, Resources: [] });
    expect(await list({ count: '0' })).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    // Out of range values are brought within it, as SCIM asks.
    expect(await list({ startIndex: '0', count: '-3' })).toMatchObject({ totalResults: 5, itemsPerPage: 0, startIndex: 1 });
    expect((await list({ count: '100000' })).itemsPerPage).toBe(5);
  });

  it('filters on userName (any case) and externalId (exact), joined by and/or', async () => {
    const [a, b, c] = users as [typeof users[0], typeof users[0], typeof users[0]];
    expect(ids(await list({ filter: `userName eq "${a.userName.toUpperCase()}"` }))).toEqual([a.id]);
    expect(ids(await list({ filter: 'externalId eq "ext-1"' }))).toEqual([b.id]);
    expect(ids(await list({ filter: 'externalId eq "EXT-1"' }))).toEqual([]);
    expect(ids(await list({ filter: `USERNAME Eq "${c.userName}" or externalId eq "ext-0"` }))).toEqual([a.id, c.id]);
    expect(ids(await list({ filter: `userName eq "${a.userName}" and externalId eq "ext-0"` }))).toEqual([a.id]);
    expect(ids(await list({ filter: `userName eq "${a.userName}" and externalId eq "ext-1"` }))).toEqual([]);
    expect(await list({ filter: 'userName eq "nobody@acme.test"' })).toMatchObject({ totalResults: 0, itemsPerPage: 0, Resources: [] });
    const paged = await list({ filter: '(externalId eq "ext-1" or externalId eq "ext-2") or externalId eq "ext-3"', count: '2' });
    expect(paged).toMatchObject({ totalResults: 3, itemsPerPage: 2 });
  });
});
