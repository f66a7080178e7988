import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedEvents, Harness, type TestTenant } from '../helpers/harness.js';
import { createPolicy, interactionBody } from '../helpers/interactions-fixtures.js';
import { type Replica, startReplica } from '../helpers/interactions-replica.js';
import { STORES } from '../helpers/stores.js';

const BLOCK_MESSAGE = 'This AI app is blocked by your company. Use the approved assistant instead.';
const COACH_MESSAGE = 'This AI app is not approved yet: do not paste company data into it.';

type Decision = { policy_name: string; action: string; message?: string };

// Policies on the tenant's platform statuses: judged at ingest with the status in force, on every
// replica, and the create answers each decision with its policy's message.
describe.each(STORES)('policies on platform statuses [%s]', (kind) => {
  let h: Harness;
  let replica: Replica;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
    replica = await startReplica(h);
  });
  afterAll(async () => {
    await replica.close();
    await h.close();
  });

  /** A tenant with the two policies of the contract's example: block blocked apps, coach on unsanctioned ones. */
  const governedTenant = async () => {
    const t = await h.tenant();
    await createPolicy(h, t, { name: 'blocked apps', action: 'block', conditions: { platform_statuses: ['blocked'] }, message: BLOCK_MESSAGE });
    await createPolicy(h, t, { name: 'unsanctioned apps', action: 'coach', conditions: { platform_statuses: ['unsanctioned'] },
      message: COACH_MESSAGE });
    return t;
  };
  const setStatus = async (t: TestTenant, id: string, status: string) => {
    const response = await h.call('PUT', `/api/v1/platforms/${id}/status`, { token: t.adminToken, body: { status } });
    expect(response.statusCode, response.body).toBe(200);
  };
  const decided = async (call: Harness['call'] | Replica['call'], t: TestTenant, platformId: string) => {
    const response = await call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody({ platform_id: platformId }) });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().policy_decisions.map(({ policy_name, action, message }: Decision) => ({ policy_name, action, message }));
  };
  const blocked = { policy_name: 'blocked apps', action: 'block', message: BLOCK_MESSAGE };
  const coached = { policy_name: 'unsanctioned apps', action: 'coach', message: COACH_MESSAGE };

  it('blocks on a blocked platform and coaches on an unsanctioned one (never set, or outside the catalog), with their messages', async () => {
    const t = await governedTenant();
    await setStatus(t, 'deepseek', 'blocked');
    await setStatus(t, 'anthropic', 'sanctioned');
    const call = h.call.bind(h);
    expect(await decided(call, t, 'deepseek')).toEqual([blocked]);
    expect(await decided(call, t, 'openai')).toEqual([coached]);
    expect(await decided(call, t, 'some-new-app')).toEqual([coached]);
    expect(await decided(call, t, 'anthropic')).toEqual([]);
  });

  it('keeps the message out of the stored interaction and its events, and leaves it out of decisions of policies without one', async () => {
    const t = await governedTenant();
    await createPolicy(h, t, { name: 'log everything', action: 'log' });
    const response = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody({ platform_id: 'openai' }) });
    const created = response.json();
    expect(created.policy_decisions).toEqual([
      { policy_id: expect.any(String), policy_name: 'unsanctioned apps', action: 'coach', matched_conditions: 1, message: COACH_MESSAGE },
      { policy_id: expect.any(String), policy_name: 'log everything', action: 'log', matched_conditions: 0 },
    ]);
    const stored = (await h.call('GET', `/api/v1/interactions/${created.id}`, { token: t.adminToken })).json();
    expect(stored.policy_decisions.map((d: Decision) => d.message)).toEqual([undefined, undefined]);
    const [event] = await capturedEvents(h, t.tenantId, 'interaction.policy_violated');
    expect(event!.data.policy_decisions).toEqual([
      { policy_id: expect.any(String), policy_name: 'unsanctioned apps', action: 'coach' },
      { policy_id: expect.any(String), policy_name: 'log everything', action: 'log' },
    ]);
  });

  it('judges each item of a batch by its platform\'s status', async () => {
    const t = await governedTenant();
    await setStatus(t, 'deepseek', 'blocked');
    await setStatus(t, 'anthropic', 'sanctioned');
    const items = ['deepseek', 'openai', 'anthropic'].map((platform_id) => interactionBody({ platform_id }));
    const response = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body: items });
    expect(response.json()).toEqual({ received: 3, stored: 3 });
    const stored = (await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { sort: 'platform_id' } })).json().data;
    expect(stored.map((i: { platform_id: string; policy_decisions: Decision[] }) =>
      [i.platform_id, i.policy_decisions.map((d) => d.action)])).toEqual([['anthropic', []], ['deepseek', ['block']], ['openai', ['coach']]]);
    const alerts = (await h.call('GET', '/api/v1/alerts', { token: t.adminToken })).json().alerts;
    expect(alerts.map((a: { policy_name: string }) => a.policy_name).sort()).toEqual(['blocked apps', 'unsanctioned apps']);
  });

  it('applies a status change to the very next create, on this instance and on another one', async () => {
    const t = await governedTenant();
    const here = h.call.bind(h);
    const there = replica.call.bind(replica);
    // Both instances cache the tenant's rules first.
    expect(await decided(here, t, 'perplexity')).toEqual([coached]);
    expect(await decided(there, t, 'perplexity')).toEqual([coached]);
    await setStatus(t, 'perplexity', 'blocked');
    expect(await decided(there, t, 'perplexity')).toEqual([blocked]);
    expect(await decided(here, t, 'perplexity')).toEqual([blocked]);
    await setStatus(t, 'perplexity', 'sanctioned');
    expect(await decided(there, t, 'perplexity')).toEqual([]);
    await setStatus(t, 'perplexity', 'unsanctioned');
    expect(await decided(there, t, 'perplexity')).toEqual([coached]);
    // A change of the message reaches the other instance the same way.
    const policies = (await h.call('GET', '/api/v1/policies', { token: t.adminToken })).json().policies;
    const coach = policies.find((p: { name: string }) => p.name === 'unsanctioned apps');
    await h.call('PUT', `/api/v1/policies/${coach.id}`, { token: t.adminToken, body: { message: 'Ask IT first.' } });
    expect(await decided(there, t, 'perplexity')).toEqual([{ ...coached, message: 'Ask IT first.' }]);
  });

  it("never applies one tenant's statuses to another's interactions", async () => {
    const t1 = await governedTenant();
    const t2 = await governedTenant();
    await setStatus(t1, 'mistral', 'blocked');
    expect(await decided(replica.call.bind(replica), t2, 'mistral')).toEqual([coached]);
    expect(await decided(replica.call.bind(replica), t1, 'mistral')).toEqual([blocked]);
  });

  it('dry-runs a policy on platform_statuses with the statuses in force now', async () => {
    const t = await h.tenant();
    for (const platform_id of ['deepseek', 'deepseek', 'openai']) {
      await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody({ platform_id }) });
    }
    const dryRun = async () => (await h.call('POST', '/api/v1/policies/dry-run', { token: t.adminToken,
      body: { name: 'blocked apps', action: 'block', conditions: { platform_statuses: ['blocked'] } } })).json().matched;
    expect(await dryRun()).toBe(0);
    await setStatus(t, 'deepseek', 'blocked');
    expect(await dryRun()).toBe(2);
  });
});
