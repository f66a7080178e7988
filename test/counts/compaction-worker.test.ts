import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('counts compaction worker [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await Harness.start(kind, { workers: true });
    t = await h.tenant();
  });
  afterAll(async () => h.close());

  it('moves the deltas of new interactions into the counts, and the total stays exact', async () => {
    const body = Array.from({ length: 50 }, (_, i) => interactionBody({ platform_id: i % 2 ? 'openai' : 'claude' }));
    expect((await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body })).statusCode).toBe(200);
    await expect.poll(async () => Number((await sql<{ n: string }>`select count(*) as n from interaction_count_deltas`.execute(h.db)).rows[0]!.n),
      { timeout: 10_000 }).toBe(0);
    // Each granularity counts them once in its detail rows and once in its roll-up ('' dimensions).
    const { rows } = await sql<{ granularity: string; rollup: boolean; total: string }>`
      select granularity, platform_id = '' as rollup, sum(count) as total from interaction_counts
      where tenant_id = ${t.tenantId} and classification_type = '' group by 1, 2 order by 1, 2`.execute(h.db);
    expect(rows.map((row) => [row.granularity, row.rollup, Number(row.total)])).toEqual([
      ['day', false, 50], ['day', true, 50], ['hour', false, 50], ['hour', true, 50], ['month', false, 50], ['month', true, 50]]);
    const list = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { platform_id: 'openai' } });
    expect(list.json().total).toBe(25);
  });

  it('moves the deltas of raised and resolved alerts into the alert counts', async () => {
    await createPolicy(h, t, { action: 'coach', severity: 'high', conditions: { platform_ids: ['mistral'] } });
    const body = Array.from({ length: 6 }, () => interactionBody({ platform_id: 'mistral' }));
    expect((await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body })).statusCode).toBe(200);
    const alerts = await h.call('GET', '/api/v1/alerts', { token: t.adminToken, query: { status: 'open' } });
    expect(alerts.json().total).toBe(6);
    const [first] = alerts.json().alerts;
    expect((await h.call('POST', `/api/v1/alerts/${first.id}/resolve`, { token: t.adminToken })).statusCode).toBe(200);
    await expect.poll(async () => Number((await sql<{ n: string }>`select count(*) as n from alert_count_deltas`.execute(h.db)).rows[0]!.n),
      { timeout: 10_000 }).toBe(0);
    const { rows } = await sql<{ granularity: string; status: string; severity: string; total: string }>`
      select granularity, status, severity, sum(count) as total from alert_counts where tenant_id = ${t.tenantId}
      group by 1, 2, 3 order by 1, 2`.execute(h.db);
    expect(rows.map((row) => [row.granularity, row.status, row.severity, Number(row.total)])).toEqual([
      ['day', 'open', 'high', 5], ['day', 'resolved', 'high', 1], ['hour', 'open', 'high', 5], ['hour', 'resolved', 'high', 1],
      ['month', 'open', 'high', 5], ['month', 'resolved', 'high', 1]]);
    const stats = await h.call('GET', '/api/v1/stats', { token: t.adminToken });
    expect(stats.json().alerts.open_by_severity).toEqual({ low: 0, medium: 0, high: 5, critical: 0 });
  });
});
