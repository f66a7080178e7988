import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, createPolicy, interactionBody, outboxEvents, randomHash } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

/** A request whose content hash a test trigger turns into a database error. */
const POISON = 'dead'.repeat(16);

describe.each(STORES)('group commit of creates [%s]', (kind) => {
  let h: Harness;
  let tenants: TestTenant[];
  beforeAll(async () => {
    // Without the rate limit: its count, one statement per credential, staggers the tenants' requests,
    // and the groups this test looks for need them to arrive together.
    h = await Harness.start(kind, { captureEvents: true, env: { RATE_LIMIT_PER_MINUTE: '0' } });
    tenants = [await h.tenant('One'), await h.tenant('Two'), await h.tenant('Three')];
    // Each tenant judges with its own policy, so a response carrying another tenant's decision shows.
    for (const [i, t] of tenants.entries()) {
      await createPolicy(h, t, { name: `policy of tenant ${i}`, action: 'coach', severity: 'high',
        conditions: { classification_types: ['CREDIT_CARD'] } });
    }
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Sends every request at once (credentials already cached) and returns the answers in order. */
  async function burst(requests: Array<{ t: TestTenant; body: unknown; batch?: boolean }>) {
    return Promise.all(requests.map(({ t, body, batch }) =>
      h.call('POST', batch ? '/api/v1/interactions/batch' : '/api/v1/interactions', { token: t.adminToken, body })));
  }

  /** The transaction that wrote each stored interaction (PostgreSQL's xmin), by id. */
  async function writers(ids: string[]): Promise<Map<string, { tx: string; tenant: string }>> {
    const { rows } = await sql<{ id: string; tenant_id: string; tx: string }>`
      select id, tenant_id, xmin::text as tx from interactions where id = any(${ids}::uuid[])`.execute(h.db);
    return new Map(rows.map((row) => [row.id, { tx: row.tx, tenant: row.tenant_id }]));
  }

  async function withTrigger(errcode: string, run: () => Promise<void>) {
    await sql.raw(`create or replace function reject_poison() returns trigger language plpgsql as $$
      begin
        if new.content_hash = '${POISON}' then raise exception 'poisoned row' using errcode = '${errcode}'; end if;
        return new;
      end $$`).execute(h.db);
    await sql`create trigger reject_poison before insert on interactions for each row execute function reject_poison()`.execute(h.db);
    try {
      await run();
    } finally {
      await sql`drop trigger reject_poison on interactions`.execute(h.db);
    }
  }

  const stored = async (ids: string[]) => (await writers(ids)).size;

  it('writes concurrent creates of several tenants in shared transactions, each answered with its own interaction', async () => {
    for (const t of tenants) await h.call('GET', '/api/v1/tenant', { token: t.adminToken }); // cache the credentials
    const requests = Array.from({ length: 30 }, (_, i) => ({
      t: tenants[i % 3]!,
      body: interactionBody({ platform_id: `p${i}`, classifications: [classification('CREDIT_CARD')] }),
    }));
    const answers = await burst(requests);
    const bodies = answers.map((answer) => {
      expect(answer.statusCode, answer.body).toBe(201);
      return answer.json();
    });
    bodies.forEach((body, i) => {
      const { t } = requests[i]!;
      expect(body.tenant_id).toBe(t.tenantId);
      expect(body.platform_id).toBe(`p${i}`);
      expect(body.policy_decisions.map((d: { policy_name: string }) => d.policy_name)).toEqual([`policy of tenant ${i % 3}`]);
    });

    const written = await writers(bodies.map((body) => body.id));
    expect(written.size).toBe(30);
    const tenantsByTransaction = new Map<string, Set<string>>();
    for (const { tx, tenant } of written.values()) {
      tenantsByTransaction.set(tx, (tenantsByTransaction.get(tx) ?? new Set()).add(tenant));
    }
    expect(tenantsByTransaction.size).toBeLessThan(30);
    expect(Math.max(...[...tenantsByTransaction.values()].map((set) => set.size))).toBeGreaterThan(1);

    // Each tenant reads its own interactions, alerts and events; nothing of the others.
    for (const [i, t] of tenants.entries()) {
      const own = bodies.filter((_, j) => j % 3 === i);
      const listed = await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { limit: 100 } });
      expect(listed.json().data.map((row: { id: string }) => row.id).sort()).toEqual(own.map((body) => body.id).sort());
      const alerts = await h.call('GET', '/api/v1/alerts', { token: t.adminToken, query: { limit: 100 } });
      expect(alerts.json().alerts.map((a: { interaction_id: string }) => a.interaction_id).sort())
        .toEqual(own.map((body) => body.id).sort());
      const created = await outboxEvents(h, t.tenantId, 'interaction.created');
      expect(created.map((event) => (event.data as { id: string }).id).sort()).toEqual(own.map((body) => body.id).sort());
      const other = bodies[(i + 1) % 3]!;
      expect((await h.call('GET', `/api/v1/interactions/${other.id}`, { token: t.adminToken })).statusCode).toBe(404);
    }
  });

  it('fails only the request the database refuses; its neighbours in the transaction are stored', async () => {
    await withTrigger('22023', async () => {
      const requests = [
        ...Array.from({ length: 12 }, (_, i) => ({ t: tenants[i % 3]!, body: interactionBody() })),
        { t: tenants[0]!, body: interactionBody({ content_hash: POISON }) },
        { t: tenants[1]!, body: [interactionBody(), interactionBody({ content_hash: POISON })], batch: true },
        { t: tenants[2]!, body: [interactionBody(), interactionBody()], batch: true },
      ];
      const answers = await burst(requests);
      expect(answers.map((answer) => answer.statusCode)).toEqual([...Array(12).fill(201), 400, 400, 200]);
      expect(answers[12]!.json()).toMatchObject({ code: 'validation_error' });
      const singles = answers.slice(0, 12).map((answer) => answer.json().id);
      expect(await stored(singles)).toBe(12);
      expect(answers[14]!.json()).toEqual({ received: 2, stored: 2 });
      // The refused batch stored nothing, not even its good item.
      const goodItemOfRefusedBatch = (requests[13]!.body as Array<{ content_hash: string }>)[0]!.content_hash;
      const { rows } = await sql`select 1 from interactions where content_hash = ${goodItemOfRefusedBatch}`.execute(h.db);
      expect(rows).toHaveLength(0);
    });
  });

  it('fails every request of a transaction the store fails with 503 and stores none of them', async () => {
    await withTrigger('57P01', async () => {
      // Repeated until the poisoned request shared its transaction with others (it almost always does at once).
      let neighboursFailed = 0;
      for (let attempt = 0; attempt < 5 && neighboursFailed === 0; attempt += 1) {
        const requests = Array.from({ length: 15 }, (_, i) => ({ t: tenants[i % 3]!, body: interactionBody() }));
        requests.splice(7, 0, { t: tenants[1]!, body: interactionBody({ content_hash: POISON }) });
        const answers = await burst(requests);
        expect(answers[7]!.statusCode).toBe(503);
        for (const [i, answer] of answers.entries()) {
          expect([201, 503]).toContain(answer.statusCode);
          if (answer.statusCode === 503) {
            expect(answer.json()).toMatchObject({ code: 'unavailable' });
            expect(answer.headers['retry-after']).toBeDefined();
            const hash = (requests[i]!.body as { content_hash: string }).content_hash;
            const { rows } = await sql`select 1 from interactions where content_hash = ${hash}`.execute(h.db);
            expect(rows).toHaveLength(0);
          } else {
            expect(await stored([answer.json().id])).toBe(1);
          }
        }
        neighboursFailed = answers.filter((answer: LightMyRequestResponse) => answer.statusCode === 503).length - 1;
      }
      expect(neighboursFailed).toBeGreaterThan(0);
    });
  });

  it('stores one interaction per Idempotency-Key when requests with it share a transaction; a different body gets 409', async () => {
    const t = tenants[0]!;
    const key = `k-${randomHash().slice(0, 12)}`;
    const body = interactionBody();
    const other = interactionBody();
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => h.call('POST', '/api/v1/interactions', { token: t.adminToken, body, headers: { 'idempotency-key': key } })),
      h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: other, headers: { 'idempotency-key': key } }),
      // The same key in another tenant is another key.
      h.call('POST', '/api/v1/interactions', { token: tenants[1]!.adminToken, body, headers: { 'idempotency-key': key } }),
    ]);
    // The requests race to the key: whichever body is first to commit wins it, the other gets 409.
    // (The six usually win: they are sent first; under load the other one may get there before them.)
    const same = answers.slice(0, 6);
    const sameWon = answers[6]!.statusCode === 409;
    const { rows } = await sql`select 1 from interactions where tenant_id = ${t.tenantId} and content_hash = ${body.content_hash as string}`
      .execute(h.db);
    const { rows: others } = await sql`select 1 from interactions where content_hash = ${other.content_hash as string}`.execute(h.db);
    if (sameWon) {
      expect(same.map((answer) => answer.statusCode)).toEqual(Array(6).fill(201));
      expect(new Set(same.map((answer) => answer.json().id)).size).toBe(1);
      expect(same.filter((answer) => answer.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
      expect(answers[6]!.json()).toMatchObject({ code: 'idempotency_conflict' });
      expect([rows.length, others.length]).toEqual([1, 0]);
    } else {
      expect(answers[6]!.statusCode).toBe(201);
      expect(same.map((answer) => answer.statusCode)).toEqual(Array(6).fill(409));
      expect(same.map((answer) => answer.json().code)).toEqual(Array(6).fill('idempotency_conflict'));
      expect([rows.length, others.length]).toEqual([0, 1]);
    }
    expect(answers[7]!.statusCode).toBe(201);
    expect(answers[7]!.json().id).not.toBe(same[0]!.json().id);
  });
});
