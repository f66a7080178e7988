import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prefixedId } from '../../src/kernel/ids.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { type ListQuery, walkList } from '../helpers/interactions-lists.js';
import { STORES } from '../helpers/stores.js';

/** Every list but interactions (test/interactions/list-cursor.test.ts): the same cursor rules. */
interface ListCase {
  name: string;
  path: () => string;
  itemsKey: string;
  viewerAllowed: boolean;
  /** Queries walked by cursor: each must visit what one big page lists, in that order. */
  queries: ListQuery[];
  /** A query whose cursors the first query refuses (other filters or another sort). */
  otherScope: ListQuery;
}

describe.each(STORES)('lists by cursor [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let viewerToken: string;
  let webhookId: string;
  let otherWebhookId: string;

  async function post(url: string, body: unknown) {
    const response = await h.call('POST', url, { token: t.adminToken, body });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json();
  }

  /** Many rows share their time (to the second): the id breaks the ties. */
  async function shareTimes(table: 'users' | 'api_keys' | 'policies' | 'audit_log' | 'webhooks', column: string) {
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = date_trunc('second', ${sql.ref(column)})
      where tenant_id = ${t.tenantId}`.execute(h.db);
  }

  async function seedDeliveries(webhookId: string) {
    const times = [0, 0, 1, 1, 1, 2].map((s) => new Date(Date.UTC(2024, 0, 1, 0, 0, s)));
    const rows = Array.from({ length: 25 }, (_, i) => ({
      tenant_id: t.tenantId, id: prefixedId('dlv'), webhook_id: webhookId, job_id: null, event_id: prefixedId('evt'),
      event_type: 'policy.created', attempt: 1, is_test: false, attempted_at: times[i % times.length]!,
      status_code: 200, response_time_ms: 5, success: true, error: null,
    }));
    await h.db.insertInto('webhook_deliveries').values(rows).execute();
  }

  beforeAll(async () => {
    h = await Harness.start(kind, { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    t = await h.tenant();
    viewerToken = (await h.user(t, 'viewer')).token;
    for (let i = 0; i < 14; i += 1) {
      const email = `${i % 2 ? 'USER' : 'user'}${i}@Acme.test`;
      await post('/api/v1/users/invite', { email, role: i % 3 ? 'viewer' : 'admin' });
    }
    for (let i = 0; i < 12; i += 1) await post('/api/v1/api-keys', { name: `key ${i}`, scopes: ['interactions:read'] });
    for (let i = 0; i < 12; i += 1) {
      await createPolicy(h, t, { name: `policy ${i}`, action: i < 2 ? 'coach' : 'log', severity: i ? 'medium' : 'high', enabled: i % 4 !== 3 });
    }
    await post('/api/v1/interactions/batch', Array.from({ length: 15 }, () => interactionBody()));
    const webhooks = [];
    for (let i = 0; i < 12; i += 1) {
      webhooks.push(await post('/api/v1/webhooks', { url: `https://127.0.0.1:9/hook${i}`, events: ['policy.created'], active: i % 3 !== 0 }));
    }
    [webhookId, otherWebhookId] = [webhooks[0].id, webhooks[1].id];
    await seedDeliveries(webhookId);
    await seedDeliveries(otherWebhookId);
    for (const [table, column] of [['users', 'created_at'], ['api_keys', 'created_at'], ['policies', 'created_at'],
      ['audit_log', 'occurred_at'], ['webhooks', 'created_at']] as const) await shareTimes(table, column);
  });
  afterAll(async () => h.close());

  const LISTS: ListCase[] = [
    { name: 'users', path: () => '/api/v1/users', itemsKey: 'users', viewerAllowed: false,
      queries: [{ sort: 'created_at' }, { sort: '-created_at' }, { sort: 'email' }, { sort: '-email' }, { role: 'viewer', sort: '-email' },
        { status: 'pending' }],
      otherScope: { sort: 'email' } },
    { name: 'api keys', path: () => '/api/v1/api-keys', itemsKey: 'api_keys', viewerAllowed: false, queries: [{}], otherScope: {} },
    { name: 'policies', path: () => '/api/v1/policies', itemsKey: 'policies', viewerAllowed: true,
      queries: [{}, { action: 'log' }, { enabled: 'true' }], otherScope: { action: 'coach' } },
    { name: 'alerts', path: () => '/api/v1/alerts', itemsKey: 'alerts', viewerAllowed: true,
      queries: [{}, { severity: 'medium' }, { status: 'open', start_date: '2000-01-01T00:00:00Z' }], otherScope: { severity: 'high' } },
    { name: 'audit log', path: () => '/api/v1/audit-log', itemsKey: 'entries', viewerAllowed: false,
      queries: [{}, { action: 'policy.created' }], otherScope: { action: 'user.invited' } },
    { name: 'webhooks', path: () => '/api/v1/webhooks', itemsKey: 'webhooks', viewerAllowed: false,
      queries: [{}, { active: 'true' }], otherScope: { active: 'false' } },
    { name: 'webhook deliveries', path: () => `/api/v1/webhooks/${webhookId}/deliveries`, itemsKey: 'deliveries',
      viewerAllowed: false, queries: [{}], otherScope: {} },
  ];
  const list = (c: ListCase, query: ListQuery, token = t.adminToken) => h.call('GET', c.path(), { token, query });
  const cursorOf = async (c: ListCase, query: ListQuery) => {
    const response = await list(c, { ...query, limit: 2 });
    expect(response.json().next_cursor).toEqual(expect.any(String));
    return response.json().next_cursor as string;
  };

  it('has seeded every list beyond a few pages', async () => {
    for (const c of LISTS) {
      expect((await list(c, {})).json().total, c.name).toBeGreaterThanOrEqual(12);
    }
  });

  it('refuses a cursor of another webhook\'s deliveries', async () => {
    const deliveries = LISTS.at(-1)!;
    const cursor = await cursorOf(deliveries, {});
    const response = await h.call('GET', `/api/v1/webhooks/${otherWebhookId}/deliveries`, { token: t.adminToken, query: { cursor } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'query.cursor' }] });
  });

  describe.each(LISTS)('$name', (c) => {
    it.each(c.queries)('walks %o by next_cursor, limits changing: every item once, in the list\'s order', async (query) => {
      const whole = (await list(c, { ...query, limit: 500 })).json();
      const { ids, pages } = await walkList(h, c.path(), t.adminToken, query, (n) => [2, 3, 5][n % 3]!, c.itemsKey);
      expect(ids).toEqual(whole[c.itemsKey].map((item: { id: string }) => item.id));
      expect(new Set(ids).size).toBe(whole.total);
      for (const [n, page] of pages.entries()) {
        expect(page.body.total).toBe(whole.total);
        expect(page.headers.link === undefined).toBe(n === pages.length - 1);
      }
    });

    it('follows its Link header as is', async () => {
      const first = await list(c, { ...c.queries.at(-1), limit: 3 });
      const link = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))![1]!;
      const second = await h.call('GET', link, { token: t.adminToken });
      const direct = await list(c, { ...c.queries.at(-1), limit: 3, cursor: first.json().next_cursor });
      expect(second.statusCode).toBe(200);
      expect(second.json()).toEqual(direct.json());
      expect(second.headers['x-page']).toBe('2');
    });

    it('refuses bad cursors with 400 validation_error on query.cursor', async () => {
      const query = c.queries[0]!;
      const cursor = await cursorOf(c, query);
      const otherList = LISTS[(LISTS.indexOf(c) + 1) % LISTS.length]!;
      const refused: ListQuery[] = [
        { ...query, cursor: 'garbage!' },
        { ...query, cursor: cursor.slice(0, -2) },
        { ...query, cursor, page: 2 },
        { ...query, cursor: await cursorOf(otherList, {}) },
      ];
      if (Object.keys(c.otherScope).length > 0) refused.push({ ...c.otherScope, cursor });
      for (const bad of refused) {
        const response = await list(c, bad);
        expect(response.statusCode, `${JSON.stringify(bad)}: ${response.body}`).toBe(400);
        expect(response.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'query.cursor' }] });
      }
    });

    it(`answers anonymous callers 401 and viewers ${c.viewerAllowed ? '200' : '403'} with a cursor`, async () => {
      const cursor = await cursorOf(c, {});
      expect((await h.call('GET', c.path(), { query: { cursor } })).statusCode).toBe(401);
      expect((await list(c, { cursor }, viewerToken)).statusCode).toBe(c.viewerAllowed ? 200 : 403);
    });
  });
});
