import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import {
  classification, countRows, createPolicy, interactionBody, INVALID_BODIES, outboxEvents,
} from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('batch create [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  const batch = (token: string | undefined, body: unknown) => h.call('POST', '/api/v1/interactions/batch', { token, body });

  it('stores the valid items, skips the invalid ones silently and counts both', async () => {
    const t = await h.tenant();
    const valid = [interactionBody(), interactionBody({ platform_id: ' Claude ' }), interactionBody({ risk_score: 1 })];
    const items = [valid[0], { platform_id: 'openai' }, valid[1], interactionBody({ risk_score: 2 }), 'text', null, 7, valid[2]];
    const response = await batch(t.adminToken, items);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: 8, stored: 3 });
    const rows = await h.db.selectFrom('interactions').select(['content_hash', 'platform_id', 'timestamp'])
      .where('tenant_id', '=', t.tenantId).execute();
    expect(rows.map((r) => r.content_hash).sort()).toEqual(valid.map((v) => v.content_hash).sort());
    expect(rows.find((r) => r.content_hash === valid[1]!.content_hash)!.platform_id).toBe('claude');
  });

  it('skips each item a single create refuses, and stores each one it accepts', async () => {
    const t = await h.tenant();
    const items = INVALID_BODIES.map(([, overrides]) => interactionBody(overrides));
    const response = await batch(t.adminToken, [...items, interactionBody()]);
    expect(response.json()).toEqual({ received: INVALID_BODIES.length + 1, stored: 1 });
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(1);
  });

  it('answers an empty array with zero counts', async () => {
    const t = await h.tenant();
    const response = await batch(t.adminToken, []);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: 0, stored: 0 });
  });

  it('stores 500 items in one request, all at the same timestamp', async () => {
    const t = await h.tenant();
    const response = await batch(t.adminToken, Array.from({ length: 500 }, () => interactionBody()));
    expect(response.json()).toEqual({ received: 500, stored: 500 });
    const timestamps = await h.db.selectFrom('interactions').select('timestamp').distinct()
      .where('tenant_id', '=', t.tenantId).execute();
    expect(timestamps).toHaveLength(1);
    expect(await countRows(h, 'webhook_messages', t.tenantId)).toBe(501); // 500 interaction.created, 1 platform.discovered
  });

  it('refuses 501 items, and bodies that are not arrays, with 400 and stores nothing', async () => {
    const t = await h.tenant();
    for (const body of [Array.from({ length: 501 }, () => interactionBody()), interactionBody(), { items: [] }]) {
      const response = await batch(t.adminToken, body);
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('validation_error');
    }
    for (const body of ['"text"', '42', 'null']) {
      const response = await h.call('POST', '/api/v1/interactions/batch', {
        token: t.adminToken, body, headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode, body).toBe(400);
    }
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(0);
    expect(await countRows(h, 'webhook_messages', t.tenantId)).toBe(0);
  });

  it('judges each stored item like a single create: same decisions, alerts and events', async () => {
    const t = await h.tenant();
    const block = await createPolicy(h, t, { name: 'block cards', action: 'block', severity: 'high',
      conditions: { classification_types: ['CREDIT_CARD'] } });
    await createPolicy(h, t, { name: 'log claude', action: 'log', conditions: { platform_ids: ['claude'] } });
    const items = [
      interactionBody({ classifications: [classification('CREDIT_CARD')], risk_score: 0.9 }),
      interactionBody({ platform_id: 'claude' }),
      interactionBody({ platform_id: 'claude', classifications: [classification('CREDIT_CARD')] }),
      interactionBody(),
      interactionBody({ risk_score: 'high' }),
    ];
    expect((await batch(t.adminToken, items)).json()).toEqual({ received: 5, stored: 4 });

    const listed = (await h.call('GET', '/api/v1/interactions', { token: t.adminToken })).json().data as Array<Record<string, any>>;
    const byHash = new Map(listed.map((i) => [i.content_hash, i]));
    // The same items created one by one in another tenant get the same decisions (by policy name).
    const t2 = await h.tenant();
    await createPolicy(h, t2, { name: 'block cards', action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] } });
    await createPolicy(h, t2, { name: 'log claude', action: 'log', conditions: { platform_ids: ['claude'] } });
    for (const item of items.slice(0, 4)) {
      const single = (await h.call('POST', '/api/v1/interactions', { token: t2.adminToken, body: item })).json();
      const names = (decisions: Array<{ policy_name: string; action: string }>) => decisions.map((d) => [d.policy_name, d.action]);
      expect(names(byHash.get(item.content_hash as string)!.policy_decisions)).toEqual(names(single.policy_decisions));
    }

    const alerts = await h.db.selectFrom('alerts').selectAll().where('tenant_id', '=', t.tenantId).execute();
    expect(alerts).toHaveLength(2);
    expect(alerts.every((a) => a.policy_id === block.id && a.severity === 'high')).toBe(true);
    const events = await outboxEvents(h, t.tenantId);
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count('interaction.created')).toBe(4);
    expect(count('interaction.policy_violated')).toBe(3);
    expect(count('interaction.high_risk')).toBe(1);
    expect(count('alert.created')).toBe(2);
    expect(count('alert.severity_high')).toBe(2);
    for (const event of events.filter((e) => e.type === 'interaction.created')) {
      const stored = byHash.get(event.data.content_hash)!;
      expect(event.data).toEqual({
        ...stored,
        policy_decisions: stored.policy_decisions.map(({ matched_conditions: _m, ...decision }: Record<string, unknown>) => decision),
      });
    }
  });

  it('admits admins and write keys; refuses viewers, read keys and anonymous callers', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const writeKey = await h.apiKey(t, ['interactions:write']);
    const readKey = await h.apiKey(t, ['interactions:read']);
    expect((await batch(t.adminToken, [interactionBody()])).statusCode).toBe(200);
    expect((await batch(writeKey, [interactionBody()])).statusCode).toBe(200);
    expect((await batch(viewer.token, [interactionBody()])).statusCode).toBe(403);
    expect((await batch(readKey, [interactionBody()])).statusCode).toBe(403);
    expect((await batch(undefined, [interactionBody()])).statusCode).toBe(401);
    expect(await countRows(h, 'interactions', t.tenantId)).toBe(2);
  });
});
