import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';

const ROWS = 1234; // more than one export page of 1,000

describe.each(STORES)('exports [%s]', (kind) => {
  let h: Harness;
  let t: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    h = await Harness.start(kind);
    t = await h.tenant('Exporting');
    other = await h.tenant('Other');
    await createPolicy(h, t, { action: 'coach', severity: 'low', conditions: { classification_types: ['CREDIT_CARD'] } });
    for (let done = 0; done < ROWS; done += 500) {
      const items = Array.from({ length: Math.min(500, ROWS - done) }, (_, i) => interactionBody({
        platform_id: ['chatgpt', 'claude', 'mistral'][i % 3],
        risk_score: (i % 10) / 10,
        content_metadata: { note: '=1+1', n: done + i },
        classifications: i % 4 === 0 ? [classification('CREDIT_CARD', { value: '4111 1111 1111 1111' })] : [],
      }));
      expect((await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items })).statusCode).toBe(200);
    }
    await h.call('POST', '/api/v1/interactions', { token: other.adminToken, body: interactionBody() });
  }, 120_000);
  afterAll(async () => h.close());

  /** Every interaction of a list, walked through the API by cursor. */
  async function listAll(query: Record<string, string>) {
    const all: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    do {
      const page = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { ...query, limit: 500, ...(cursor ? { cursor } : {}) } });
      expect(page.statusCode, page.body).toBe(200);
      all.push(...page.json().data);
      cursor = page.json().next_cursor ?? undefined;
    } while (cursor);
    return all;
  }

  const exportOf = (query: Record<string, string>, token = t.adminToken, path = '/api/v1/interactions/export') =>
    h.call('GET', path, { token, query });

  it('streams every interaction of the filters as CSV, in the list\'s order, with a file name', async () => {
    const queries: Array<Record<string, string>> = [{}, { classification_type: 'CREDIT_CARD' }, { platform_id: 'claude', sort: '-risk_score' }];
    for (const query of queries) {
      const response = await exportOf({ format: 'csv', ...query });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['content-disposition']).toMatch(/^attachment; filename="interactions-\d{8}T\d{6}Z\.csv"$/);
      const records = parse(response.body, { columns: true }) as Array<Record<string, string>>;
      const listed = await listAll(query);
      expect(records.map((record) => record.id)).toEqual(listed.map((interaction) => interaction.id));
      const first = listed[0]!;
      const [record] = records;
      expect(record).toMatchObject({ platform_id: first.platform_id, content_hash: first.content_hash, risk_score: String(first.risk_score) });
      for (const field of ['classifications', 'policy_decisions', 'content_metadata']) {
        expect(JSON.parse(record![field]!), field).toEqual(first[field]);
      }
    }
    const all = parse((await exportOf({})).body, { columns: true }) as Array<Record<string, string>>;
    expect(all).toHaveLength(ROWS);
    expect(all.filter((record) => record.classification_types === 'CREDIT_CARD')).toHaveLength(Math.ceil(ROWS / 4));
  });

  it('streams NDJSON: one interaction per line, as the API returns it', async () => {
    const response = await exportOf({ format: 'ndjson', risk_score_min: '0.8' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/filename="interactions-\d{8}T\d{6}Z\.ndjson"/);
    const lines = response.body.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual(await listAll({ risk_score_min: '0.8' }));
  });

  it('is audited, and readable by viewers and read keys but not by write-only keys', async () => {
    const viewer = await h.user(t, 'viewer');
    const reader = await h.apiKey(t, ['interactions:read']);
    const writer = await h.apiKey(t, ['interactions:write']);
    expect((await exportOf({ platform_id: 'mistral' }, viewer.token)).statusCode).toBe(200);
    expect((await exportOf({ format: 'ndjson' }, reader)).statusCode).toBe(200);
    expect((await exportOf({}, writer)).statusCode).toBe(403);
    expect((await h.call('GET', '/api/v1/interactions/export', {})).statusCode).toBe(401);
    const audit = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { action: 'interactions.exported', actor_id: viewer.id } });
    expect(audit.json().entries).toEqual([expect.objectContaining({ details: { format: 'csv', filters: { platform_id: 'mistral', sort: '-timestamp' } } })]);
  });

  it('ignores unknown parameters, which never reach the audit entry, and refuses a NUL in a filter with 400', async () => {
    const response = await h.call('GET', '/api/v1/audit-log/export?format=ndjson&note%00=x%00&platform=y', { token: t.adminToken });
    expect(response.statusCode, response.body).toBe(200);
    const entry = JSON.parse(response.body.split('\n')[0]!);
    expect(entry).toMatchObject({ action: 'audit_log.exported', details: { format: 'ndjson', filters: {} } });
    const interactions = await h.call('GET', '/api/v1/interactions/export?platform_id=none-such&extra=1', { token: t.adminToken });
    expect(interactions.statusCode).toBe(200);
    const nul = await h.call('GET', '/api/v1/audit-log/export?action=x%00', { token: t.adminToken });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().code).toBe('validation_error');
  });

  it("never includes another tenant's interactions", async () => {
    const theirs = parse((await exportOf({}, other.adminToken)).body, { columns: true }) as unknown[];
    expect(theirs).toHaveLength(1);
  });

  it.each([
    [{ format: 'xml' }, 'query.format'],
    [{ risk_score_min: '0.9', risk_score_max: '0.1' }, 'query.risk_score_min'],
    [{ start_date: 'yesterday' }, 'query.start_date'],
  ])('refuses %j with 400 before streaming anything', async (query, path) => {
    const response = await exportOf(query);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().code).toBe('validation_error');
    expect(response.json().details.map((detail: { path: string }) => detail.path)).toContain(path);
  });

  it('exports the audit log for admins only, with its own export in it and formulas escaped', async () => {
    const named = await h.call('POST', '/api/v1/api-keys', { token: t.adminToken, body: { name: '=HYPERLINK("x")', scopes: ['interactions:read'] } });
    expect((await exportOf({}, named.json().key)).statusCode).toBe(200);

    const response = await exportOf({ format: 'csv' }, t.adminToken, '/api/v1/audit-log/export');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toMatch(/filename="audit-log-\d{8}T\d{6}Z\.csv"/);
    const records = parse(response.body, { columns: true }) as Array<Record<string, string>>;
    const listed = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { limit: 500 } });
    expect(records.map((record) => record.id)).toEqual(listed.json().entries.map((entry: { id: string }) => entry.id));
    expect(records[0]).toMatchObject({ action: 'audit_log.exported', actor_id: t.adminId });
    expect(records.find((record) => record.actor_type === 'api_key')?.actor_label).toBe('\'=HYPERLINK("x")');

    const viewer = await h.user(t, 'viewer');
    expect((await exportOf({}, viewer.token, '/api/v1/audit-log/export')).statusCode).toBe(403);
    expect((await exportOf({}, named.json().key, '/api/v1/audit-log/export')).statusCode).toBe(403);
    expect((await exportOf({}, '', '/api/v1/audit-log/export')).statusCode).toBe(401);
    const ndjson = await exportOf({ format: 'ndjson', action: 'interactions.exported' }, t.adminToken, '/api/v1/audit-log/export');
    const lines = ndjson.body.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line: { action: string }) => line.action === 'interactions.exported')).toBe(true);
  });
});
