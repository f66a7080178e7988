import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import { classification, createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';

describe.each(STORES)('erasure of a person\'s interactions [%s]', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  /** `count` interactions of `userId`, every other one alerting on the tenant's card policy. */
  async function ingest(t: TestTenant, userId: string, count: number) {
    for (let done = 0; done < count; done += 500) {
      const items = Array.from({ length: Math.min(500, count - done) }, (_, i) => interactionBody({
        user_id: userId, ...(i % 2 === 0 ? { classifications: [classification('CREDIT_CARD')] } : {}),
      }));
      const response = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items });
      expect(response.statusCode, response.body).toBe(200);
    }
  }

  const count = async (table: 'interactions' | 'alerts', tenantId: string, userId?: string) => {
    const byUser = userId ? sql`and interaction_id in (select id from interactions where tenant_id = ${tenantId} and user_id = ${userId})` : sql``;
    const query = table === 'interactions'
      ? sql<{ n: string }>`select count(*) as n from interactions where tenant_id = ${tenantId} ${userId ? sql`and user_id = ${userId}` : sql``}`
      : sql<{ n: string }>`select count(*) as n from alerts where tenant_id = ${tenantId} ${byUser}`;
    return Number((await query.execute(h.db)).rows[0]!.n);
  };

  const erase = (t: TestTenant, userId: string, token = t.adminToken) =>
    h.call('POST', `/api/v1/users/${userId}/erase-interactions`, { token });

  it('deletes every interaction of the user and their alerts, in batches, and returns a receipt kept in the audit log', async () => {
    const t = await h.tenant('Erasing');
    const other = await h.tenant('Unrelated');
    await createPolicy(h, t, { action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] } });
    const member = await h.user(t, 'viewer');
    const colleague = randomUUID();
    await ingest(t, member.id, 2300);
    await ingest(t, colleague, 30);
    await ingest(other, member.id, 7);
    const alertsOfMember = await count('alerts', t.tenantId, member.id);
    expect(alertsOfMember).toBe(1150);

    const response = await erase(t, member.id);
    expect(response.statusCode, response.body).toBe(200);
    const receipt = response.json();
    expect(receipt).toEqual({
      erasure_id: expect.stringMatching(/^[0-9a-f-]{36}$/), user_id: member.id, interactions_deleted: 2300,
      alerts_deleted: alertsOfMember, requested_by: t.adminId, completed_at: expect.any(String),
    });

    expect(await count('interactions', t.tenantId, member.id)).toBe(0);
    expect(await count('alerts', t.tenantId, member.id)).toBe(0);
    expect(await count('interactions', t.tenantId, colleague)).toBe(30);
    expect(await count('interactions', other.tenantId, member.id)).toBe(7);
    const list = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { limit: 1 } });
    expect(list.json().total).toBe(30);
    expect((await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { user_id: member.id } })).json().total).toBe(0);
    expect((await h.call('GET', '/api/v1/stats', { token: t.adminToken })).json().interactions.total).toBe(30);

    const again = await h.call('GET', `/api/v1/erasures/${receipt.erasure_id}`, { token: t.adminToken });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(receipt);
    const audit = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { action: 'interactions.erased' } });
    expect(audit.json().entries).toHaveLength(1);
    expect(audit.json().entries[0]).toMatchObject({ id: receipt.erasure_id, actor_id: t.adminId, target_id: member.id, details: receipt });
  });

  it('erases a user id that is not a member, and asking again deletes only what arrived since', async () => {
    const t = await h.tenant('Former');
    const formerMember = randomUUID();
    await ingest(t, formerMember, 12);
    const first = (await erase(t, formerMember)).json();
    expect(first.interactions_deleted).toBe(12);
    const repeat = await erase(t, formerMember);
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json()).toMatchObject({ interactions_deleted: 0, alerts_deleted: 0 });
    expect(repeat.json().erasure_id).not.toBe(first.erasure_id);
    await ingest(t, formerMember, 3);
    expect((await erase(t, formerMember)).json().interactions_deleted).toBe(3);
  });

  it('refuses a user id that is not a UUID with 400', async () => {
    const t = await h.tenant('Strict');
    const response = await erase(t, 'not-a-uuid');
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('validation_error');
  });

  it('is for admins: viewers and API keys get 403, no token 401, and nothing is deleted', async () => {
    const t = await h.tenant('Guarded');
    const person = randomUUID();
    await ingest(t, person, 4);
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:write', 'interactions:read']);
    for (const token of [viewer.token, key]) {
      const response = await erase(t, person, token);
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json().code).toBe('forbidden');
    }
    expect((await h.call('POST', `/api/v1/users/${person}/erase-interactions`, {})).statusCode).toBe(401);
    expect(await count('interactions', t.tenantId, person)).toBe(4);

    const receipt = (await erase(t, person)).json();
    expect((await h.call('GET', `/api/v1/erasures/${receipt.erasure_id}`, { token: viewer.token })).statusCode).toBe(403);
    expect((await h.call('GET', `/api/v1/erasures/${receipt.erasure_id}`, {})).statusCode).toBe(401);
  });

  it("answers 404 for another tenant's receipt, an unknown or malformed id, and an audit entry that is no receipt", async () => {
    const t = await h.tenant('Mine');
    const stranger = await h.tenant('Theirs');
    const receipt = (await erase(stranger, randomUUID())).json();
    const otherEntry = (await h.call('GET', '/api/v1/audit-log', { token: t.adminToken })).json().entries[0].id;
    for (const id of [receipt.erasure_id, randomUUID(), 'nope', otherEntry]) {
      const response = await h.call('GET', `/api/v1/erasures/${id}`, { token: t.adminToken });
      expect(response.statusCode, id).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
  });
});
