import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactAlertCounts, compactCounts } from '../../src/modules/counts/compaction.js';
import { applyDataRetention, RETENTION_BATCH } from '../../src/modules/retention/data-retention.js';
import { Harness, TEST_PASSWORD, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(STORES)('data retention [%s]', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await Harness.start(kind, { env: { SESSION_TTL_SECONDS: String(365 * 24 * 3600) } });
  });
  afterAll(async () => h.close());

  /** `count` interactions through the batch API, every other one a card number that a block policy alerts on. */
  async function ingest(t: TestTenant, count: number) {
    for (let done = 0; done < count; done += 500) {
      const items = Array.from({ length: Math.min(500, count - done) }, (_, i) =>
        interactionBody(i % 2 === 0 ? { classifications: [classification('CREDIT_CARD')], risk_score: 0.9 } : { platform_id: 'claude' }));
      const response = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items });
      expect(response.statusCode, response.body).toBe(200);
    }
  }

  const rows = async (table: 'interactions' | 'alerts' | 'audit_log' | 'interaction_fingerprints', tenantId: string) =>
    Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where tenant_id = ${tenantId}`.execute(h.db)).rows[0]!.n);

  /** Every total the API gives equals counting the rows that remain. */
  async function expectTotalsExact(t: TestTenant) {
    const interactions = await rows('interactions', t.tenantId);
    const cards = Number((await sql<{ n: string }>`select count(*) as n from interactions where tenant_id = ${t.tenantId}
      and classifications @> '[{"type":"CREDIT_CARD"}]'`.execute(h.db)).rows[0]!.n);
    const list = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { limit: 1 } });
    expect(list.json().total).toBe(interactions);
    expect(list.headers['x-total-count']).toBe(String(interactions));
    const filtered = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { classification_type: 'CREDIT_CARD', limit: 1 } });
    expect(filtered.json().total).toBe(cards);
    const stats = (await h.call('GET', '/api/v1/stats', { token: t.adminToken })).json();
    expect(stats.interactions.total).toBe(interactions);
    const openAlerts = Number((await sql<{ n: string }>`select count(*) as n from alerts where tenant_id = ${t.tenantId}
      and status = 'open'`.execute(h.db)).rows[0]!.n);
    expect(Object.values(stats.alerts.open_by_severity as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(openAlerts);
  }

  it('deletes interactions older than the retention, with their alerts, in batches; totals and stats stay exact', async () => {
    const t = await h.tenant('Kept briefly');
    const other = await h.tenant('Keeps everything');
    await createPolicy(h, t, { action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] } });
    const old = RETENTION_BATCH * 2 + 300;
    await ingest(t, old);
    await ingest(other, 10);
    h.clock.advance(10 * DAY_MS);
    await ingest(t, 40);
    expect(await rows('alerts', t.tenantId)).toBe(Math.ceil(old / 2) + 20);
    expect(await rows('interaction_fingerprints', t.tenantId)).toBe(Math.ceil(old / 2) + 20);

    expect((await h.call('PUT', '/api/v1/tenant', { token: t.adminToken, body: { retention_days: 5 } })).statusCode).toBe(200);
    const runs = await applyDataRetention(h.deps);

    expect(runs.find((run) => run.tenantId === t.tenantId)).toEqual({
      tenantId: t.tenantId, interactionsDeleted: old, alertsDeleted: Math.ceil(old / 2), auditEntriesDeleted: 0,
    });
    expect(await rows('interactions', t.tenantId)).toBe(40);
    expect(await rows('alerts', t.tenantId)).toBe(20);
    expect(await rows('interaction_fingerprints', t.tenantId)).toBe(20); // the values' fingerprints go with their rows
    expect(await rows('interactions', other.tenantId)).toBe(10);
    await expectTotalsExact(t);
    await compactCounts(h.db);
    await compactAlertCounts(h.db);
    await expectTotalsExact(t);
    await expectTotalsExact(other);

    const audit = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { action: 'retention.applied' } });
    expect(audit.json().entries).toHaveLength(1);
    expect(audit.json().entries[0]).toMatchObject({
      actor_type: 'system',
      details: { interactions_deleted: old, alerts_deleted: Math.ceil(old / 2), audit_entries_deleted: 0, retention_days: 5 },
    });

    // Nothing more to delete: no new entry.
    expect((await applyDataRetention(h.deps)).find((run) => run.tenantId === t.tenantId)?.interactionsDeleted).toBe(0);
    const again = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { action: 'retention.applied' } });
    expect(again.json().entries).toHaveLength(1);
  });

  it('deletes audit entries older than the audit retention, and keeps the newer ones', async () => {
    const t = await h.tenant('Audited');
    await createPolicy(h, t, { action: 'log', severity: 'low' });
    const before = await rows('audit_log', t.tenantId);
    expect(before).toBeGreaterThan(1);
    h.clock.advance(400 * DAY_MS);
    const token = await h.login(t.adminEmail, TEST_PASSWORD);
    expect((await h.call('PUT', '/api/v1/tenant', { token, body: { audit_retention_days: 365 } })).statusCode).toBe(200);

    const run = (await applyDataRetention(h.deps)).find((entry) => entry.tenantId === t.tenantId);
    expect(run).toMatchObject({ interactionsDeleted: 0, auditEntriesDeleted: before });
    const left = await h.call('GET', '/api/v1/audit-log', { token });
    expect(left.json().entries.map((entry: { action: string }) => entry.action).sort())
      .toEqual(['auth.login', 'retention.applied', 'tenant.updated']);
  });

  it('keeps everything of a tenant without retention, whatever its age', async () => {
    const t = await h.tenant('Forever');
    await ingest(t, 5);
    h.clock.advance(3000 * DAY_MS);
    expect((await applyDataRetention(h.deps)).some((run) => run.tenantId === t.tenantId)).toBe(false);
    expect(await rows('interactions', t.tenantId)).toBe(5);
  });
});
