import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { classification, createPolicy, interactionBody, outboxEvents } from '../helpers/interactions-fixtures.js';
import { startReplica } from '../helpers/interactions-replica.js';
import { STORES } from '../helpers/stores.js';

const VALID_CARD = '4111 1111 1111 1111';
const INVALID_CARD = '4111 1111 1111 1112';

describe.each(STORES)('server-side validation of risk signals [%s]', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true });
  });
  afterAll(async () => h.close());

  const create = (t: TestTenant, body: Record<string, unknown>, call = h.call.bind(h)) =>
    call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody(body) });
  const setValidation = async (t: TestTenant, on: boolean) =>
    expect((await h.call('PUT', '/api/v1/tenant', { token: t.adminToken, body: { validate_signals: on } })).statusCode).toBe(200);

  it('marks each classification validated or not, stores it, and emits interaction.classified', async () => {
    const t = await h.tenant('Validating');
    const response = await create(t, {
      classifications: [
        classification('CREDIT_CARD', { value: VALID_CARD }), classification('CREDIT_CARD', { value: INVALID_CARD }),
        classification('IBAN', { value: 'FR14 2004 1010 0505 0001 3M02 606' }), classification('EMAIL', { value: 'jane@example' }),
        classification('PHONE', { value: '+33 6 12 34 56 78' }),
      ],
    });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json();
    expect(created.classifications.map((c: { validated: boolean }) => c.validated)).toEqual([true, false, true, false, false]);
    expect((await h.call('GET', `/api/v1/interactions/${created.id}`, { token: t.adminToken })).json()).toEqual(created);

    const classified = await outboxEvents(h, t.tenantId, 'interaction.classified');
    expect(classified).toHaveLength(1);
    expect(classified[0]!.data).toMatchObject({ id: created.id, classifications: created.classifications });

    // No classification: nothing to classify, no event.
    expect((await create(t, {})).statusCode).toBe(201);
    expect(await outboxEvents(h, t.tenantId, 'interaction.classified')).toHaveLength(1);
  });

  it('validates batch items the same way', async () => {
    const t = await h.tenant('Batch');
    const response = await h.call('POST', '/api/v1/interactions/batch', {
      token: t.adminToken,
      body: [interactionBody({ classifications: [classification('NIR', { value: '2 55 08 14 168 025 38' })] }),
        interactionBody({ classifications: [classification('SIRET', { value: '12345678901234' })] })],
    });
    expect(response.statusCode, response.body).toBe(200);
    const list = (await h.call('GET', '/api/v1/interactions', { token: t.adminToken, query: { sort: 'timestamp' } })).json().data;
    expect(list.flatMap((i: { classifications: Array<{ type: string; validated: boolean }> }) => i.classifications)
      .map((c: { type: string; validated: boolean }) => [c.type, c.validated]).sort())
      .toEqual([['NIR', true], ['SIRET', false]]);
  });

  it('leaves classifications as sent, and emits no interaction.classified, when the tenant turns it off', async () => {
    const t = await h.tenant('Not validating');
    await setValidation(t, false);
    const created = (await create(t, { classifications: [classification('CREDIT_CARD', { value: VALID_CARD, validated: true })] })).json();
    expect(created.classifications).toEqual([classification('CREDIT_CARD', { value: VALID_CARD, fingerprint: expect.stringMatching(/^fp_/) })]);
    expect(await outboxEvents(h, t.tenantId, 'interaction.classified')).toEqual([]);
  });

  it('lets a policy count only validated signals (validated_only)', async () => {
    const t = await h.tenant('Precise');
    const policy = await createPolicy(h, t, {
      name: 'Real card numbers', action: 'block', severity: 'high',
      conditions: { classification_types: ['CREDIT_CARD'], validated_only: true },
    });
    expect(policy.conditions).toEqual({ classification_types: ['CREDIT_CARD'], validated_only: true });
    const real = (await create(t, { classifications: [classification('CREDIT_CARD', { value: VALID_CARD })] })).json();
    expect(real.policy_decisions).toEqual([{ policy_id: policy.id, policy_name: 'Real card numbers', action: 'block', matched_conditions: 2 }]);
    const fake = (await create(t, { classifications: [classification('CREDIT_CARD', { value: INVALID_CARD })] })).json();
    expect(fake.policy_decisions).toEqual([]);
    const alerts = (await h.call('GET', '/api/v1/alerts', { token: t.adminToken })).json();
    expect(alerts.alerts.map((a: { interaction_id: string }) => a.interaction_id)).toEqual([real.id]);

    // Without validation nothing is validated, so such a policy matches nothing.
    await setValidation(t, false);
    expect((await create(t, { classifications: [classification('CREDIT_CARD', { value: VALID_CARD })] })).json().policy_decisions).toEqual([]);
  });

  it('refuses a validated_only that is not a boolean', async () => {
    const t = await h.tenant('Strict');
    const response = await h.call('POST', '/api/v1/policies', {
      token: t.adminToken, body: { name: 'p', action: 'log', conditions: { validated_only: 'yes' } },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('validation_error');
  });

  it('applies a change of the setting from the next request on, on every replica', async () => {
    const t = await h.tenant('Replicated');
    const replica = await startReplica(h);
    try {
      const card = { classifications: [classification('CREDIT_CARD', { value: VALID_CARD })] };
      expect((await create(t, card, replica.call)).json().classifications[0].validated).toBe(true);
      await setValidation(t, false);
      expect((await create(t, card, replica.call)).json().classifications[0]).not.toHaveProperty('validated');
      await setValidation(t, true);
      expect((await create(t, card, replica.call)).json().classifications[0].validated).toBe(true);
    } finally {
      await replica.close();
    }
  });
});
