import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, TEST_PASSWORD } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('audit log [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  it('filters by action, actor and dates, newest first, paginated', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    h.clock.advance(60_000);
    try {
      await h.login(t.adminEmail, TEST_PASSWORD);
    } finally {
      h.clock.reset();
    }
    const all = (await h.call('GET', '/api/v1/audit-log', { token: t.adminToken })).json();
    expect(all.entries.map((e: { action: string }) => e.action)).toEqual(['auth.login', 'auth.login', 'auth.login', 'tenant.created']);
    const times = all.entries.map((e: { occurred_at: string }) => e.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);

    const byActor = (await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { actor_id: viewer.id } })).json();
    expect(byActor.total).toBe(1);
    expect(byActor.entries[0]).toMatchObject({ action: 'auth.login', actor_label: viewer.email });

    const byAction = (await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { action: 'tenant.created' } })).json();
    expect(byAction.entries).toHaveLength(1);

    const cutoff = new Date(Date.now() + 30_000).toISOString();
    const after = (await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { start_date: cutoff } })).json();
    expect(after.total).toBe(1);
    const before = (await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { end_date: cutoff } })).json();
    expect(before.total).toBe(3);

    const page = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { page: 2, limit: 3 } });
    expect(page.json().entries).toHaveLength(1);
    expect(page.headers['x-total-pages']).toBe('2');
  });

  it('is for admins only, and never shows another tenant', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    expect((await h.call('GET', '/api/v1/audit-log')).statusCode).toBe(401);
    expect((await h.call('GET', '/api/v1/audit-log', { token: viewer.token })).statusCode).toBe(403);
    const other = await h.tenant('Other');
    const entries = (await h.call('GET', '/api/v1/audit-log', { token: other.adminToken })).json().entries;
    expect(entries.every((e: { actor_id: string | null }) => e.actor_id !== t.adminId && e.actor_id !== viewer.id)).toBe(true);
  });

  it('refuses bad filters', async () => {
    const t = await h.tenant();
    const queries: Record<string, string | number>[] = [{ start_date: 'yesterday' }, { page: 0 }, { page: '1e309' }, { limit: 0 },
      { end_date: '2026-13-45T00:00:00Z' }, { start_date: '2016-12-31T23:59:60Z' },
      { start_date: '2024-02-01T00:00:00Z', end_date: '2024-01-01T00:00:00Z' }];
    for (const query of queries) {
      const response = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query });
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('validation_error');
    }
  });
});
