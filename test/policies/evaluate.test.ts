import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type EvaluatedInteraction, type PolicyRule, evaluate } from '../../src/modules/policies/policies.evaluate.js';
import type { PolicyConditions } from '../../src/kernel/tables/interactions.js';

const PLATFORMS = ['openai', 'claude', 'gemini'];
const TYPES = ['EMAIL', 'PHONE', 'IBAN', 'SSN'];
const DIRECTIONS = ['outbound', 'inbound'] as const;
const SOURCES = ['browser_extension', 'proxy', 'endpoint_agent', 'api'] as const;
const INTERACTION_TYPES = ['prompt', 'completion', 'tool_call', 'embedding'] as const;
const ACTIONS = ['block', 'coach', 'log'] as const;
const STATUSES = ['sanctioned', 'unsanctioned', 'blocked'] as const;
const RANK = { block: 0, coach: 1, log: 2 };

const interactionArb: fc.Arbitrary<EvaluatedInteraction> = fc.record({
  platform_id: fc.constantFrom(...PLATFORMS),
  classifications: fc.array(fc.record({ type: fc.constantFrom(...TYPES), validated: fc.boolean() }, { requiredKeys: ['type'] }), { maxLength: 3 }),
  risk_score: fc.double({ min: 0, max: 1, noNaN: true }),
  direction: fc.constantFrom(...DIRECTIONS),
  source: fc.constantFrom(...SOURCES),
  interaction_type: fc.constantFrom(...INTERACTION_TYPES),
  platform_status: fc.constantFrom(...STATUSES),
}, { requiredKeys: ['platform_id', 'classifications', 'risk_score', 'direction', 'source', 'interaction_type'] });

const subset = <T>(values: readonly T[]) => fc.subarray([...values], { minLength: 1 });
const conditionsArb: fc.Arbitrary<PolicyConditions> = fc.record({
  platform_ids: subset(PLATFORMS),
  classification_types: subset(TYPES),
  min_risk_score: fc.double({ min: 0, max: 1, noNaN: true }),
  directions: subset(DIRECTIONS),
  sources: subset(SOURCES),
  interaction_types: subset(INTERACTION_TYPES),
  validated_only: fc.constant(true),
  platform_statuses: subset(STATUSES),
}, { requiredKeys: [] });

const policyArb = (conditions = conditionsArb, enabled: fc.Arbitrary<boolean> = fc.boolean()): fc.Arbitrary<PolicyRule> =>
  fc.record({
    id: fc.uuid(),
    name: fc.string({ maxLength: 8 }),
    action: fc.constantFrom(...ACTIONS),
    severity: fc.constantFrom('low', 'medium', 'high', 'critical'),
    enabled,
    conditions,
  });

/** The classifications a policy considers: with validated_only, the validated ones. */
const signalsOf = (c: PolicyConditions, i: EvaluatedInteraction) =>
  (c.validated_only ? i.classifications.filter((x) => x.validated === true) : i.classifications);

/** Each condition on its own, written independently of the implementation. */
const HOLDS: Record<keyof PolicyConditions, (c: Required<PolicyConditions>, i: EvaluatedInteraction) => boolean> = {
  platform_ids: (c, i) => c.platform_ids.includes(i.platform_id),
  classification_types: (c, i) => signalsOf(c, i).some((x) => c.classification_types.includes(x.type)),
  validated_only: (_c, i) => i.classifications.some((x) => x.validated === true),
  min_risk_score: (c, i) => i.risk_score >= c.min_risk_score,
  directions: (c, i) => c.directions.includes(i.direction),
  sources: (c, i) => c.sources.includes(i.source),
  interaction_types: (c, i) => c.interaction_types.includes(i.interaction_type),
  // No status given: the platform was never decided on, so it is unsanctioned.
  platform_statuses: (c, i) => c.platform_statuses.includes(i.platform_status ?? 'unsanctioned'),
};
const holdsAll = (conditions: PolicyConditions, i: EvaluatedInteraction) =>
  (Object.keys(conditions) as Array<keyof PolicyConditions>)
    .every((key) => HOLDS[key](conditions as Required<PolicyConditions>, i));

const base: EvaluatedInteraction = {
  platform_id: 'openai', classifications: [{ type: 'EMAIL' }], risk_score: 0.5, direction: 'outbound',
  source: 'proxy', interaction_type: 'prompt',
};
const rule = (overrides: Partial<PolicyRule>): PolicyRule => ({
  id: '00000000-0000-7000-8000-000000000000', name: 'p', action: 'log', severity: 'low', enabled: true, conditions: {},
  ...overrides,
});

describe('evaluate (examples)', () => {
  it('matches a policy without conditions, with matched_conditions 0', () => {
    expect(evaluate([rule({ name: 'all' })], base)).toEqual([
      { policy_id: rule({}).id, policy_name: 'all', action: 'log', matched_conditions: 0 },
    ]);
  });

  it.each([
    ['platform_ids', { platform_ids: ['openai'] }, { platform_ids: ['claude'] }],
    ['classification_types', { classification_types: ['PHONE', 'EMAIL'] }, { classification_types: ['PHONE'] }],
    ['min_risk_score', { min_risk_score: 0.5 }, { min_risk_score: 0.51 }],
    ['directions', { directions: ['outbound'] }, { directions: ['inbound'] }],
    ['sources', { sources: ['proxy', 'api'] }, { sources: ['api'] }],
    ['interaction_types', { interaction_types: ['prompt'] }, { interaction_types: ['embedding'] }],
  ] satisfies Array<[string, PolicyConditions, PolicyConditions]>)('applies %s', (_kind, matching, failing) => {
    expect(evaluate([rule({ conditions: matching })], base)).toHaveLength(1);
    expect(evaluate([rule({ conditions: failing })], base)).toEqual([]);
  });

  it('needs every condition to hold, and counts them', () => {
    const all = { platform_ids: ['openai'], min_risk_score: 0.2, directions: ['outbound' as const] };
    expect(evaluate([rule({ conditions: all })], base)[0]!.matched_conditions).toBe(3);
    expect(evaluate([rule({ conditions: { ...all, sources: ['api' as const] } })], base)).toEqual([]);
  });

  it('never matches a disabled policy', () => {
    expect(evaluate([rule({ enabled: false })], base)).toEqual([]);
  });

  it('orders block, coach, log, then by name', () => {
    const policies = [
      rule({ id: 'a', name: 'z log', action: 'log' }), rule({ id: 'b', name: 'b coach', action: 'coach' }),
      rule({ id: 'c', name: 'y block', action: 'block' }), rule({ id: 'd', name: 'a coach', action: 'coach' }),
    ];
    expect(evaluate(policies, base).map((d) => d.policy_name)).toEqual(['y block', 'a coach', 'b coach', 'z log']);
  });

  it('with validated_only, counts only validated classifications; false is the same as absent', () => {
    const cards = { classification_types: ['IBAN'] };
    const interaction = { ...base, classifications: [{ type: 'IBAN', validated: false }, { type: 'EMAIL', validated: true }] };
    expect(evaluate([rule({ conditions: cards })], interaction)).toHaveLength(1);
    expect(evaluate([rule({ conditions: { ...cards, validated_only: true } })], interaction)).toEqual([]);
    expect(evaluate([rule({ conditions: { validated_only: true } })], interaction)[0]!.matched_conditions).toBe(1);
    expect(evaluate([rule({ conditions: { validated_only: true } })], { ...base, classifications: [{ type: 'IBAN' }] })).toEqual([]);
    expect(evaluate([rule({ conditions: { ...cards, validated_only: false } })], interaction)[0]!.matched_conditions).toBe(1);
    const validIban = { ...base, classifications: [{ type: 'IBAN', validated: true }] };
    expect(evaluate([rule({ conditions: { ...cards, validated_only: true } })], validIban)[0]!.matched_conditions).toBe(2);
  });

  it('matches platform_statuses on the status the interaction is judged with; none given is unsanctioned', () => {
    const onBlocked = rule({ conditions: { platform_statuses: ['blocked'] } });
    const onUnsanctioned = rule({ conditions: { platform_statuses: ['unsanctioned'] } });
    expect(evaluate([onBlocked], { ...base, platform_status: 'blocked' })).toHaveLength(1);
    expect(evaluate([onBlocked], { ...base, platform_status: 'sanctioned' })).toEqual([]);
    expect(evaluate([onUnsanctioned], base)).toHaveLength(1);
    expect(evaluate([onUnsanctioned], { ...base, platform_status: 'sanctioned' })).toEqual([]);
  });

  it('treats an interaction without classifications as matching no classification condition', () => {
    expect(evaluate([rule({ conditions: { classification_types: ['EMAIL'] } })], { ...base, classifications: [] })).toEqual([]);
  });
});

describe('evaluate (properties)', () => {
  it('an enabled policy without conditions matches every interaction', () => {
    fc.assert(fc.property(policyArb(fc.constant({}), fc.constant(true)), interactionArb, (policy, interaction) => {
      expect(evaluate([policy], interaction)).toEqual([
        { policy_id: policy.id, policy_name: policy.name, action: policy.action, matched_conditions: 0 },
      ]);
    }));
  });

  it('a disabled policy never matches', () => {
    fc.assert(fc.property(fc.array(policyArb(conditionsArb, fc.constant(false))), interactionArb, (policies, interaction) => {
      expect(evaluate(policies, interaction)).toEqual([]);
    }));
  });

  it('each condition kind alone matches exactly when it holds', () => {
    fc.assert(fc.property(conditionsArb, interactionArb, (conditions, interaction) => {
      for (const key of Object.keys(conditions) as Array<keyof PolicyConditions>) {
        const single = { [key]: conditions[key] } as PolicyConditions;
        const matched = evaluate([rule({ conditions: single })], interaction).length === 1;
        expect(matched).toBe(HOLDS[key](single as Required<PolicyConditions>, interaction));
      }
    }));
  });

  it('a policy matches exactly when all its conditions hold; matched_conditions counts them', () => {
    fc.assert(fc.property(policyArb(conditionsArb, fc.constant(true)), interactionArb, (policy, interaction) => {
      const decisions = evaluate([policy], interaction);
      expect(decisions.length === 1).toBe(holdsAll(policy.conditions, interaction));
      if (decisions.length === 1) expect(decisions[0]!.matched_conditions).toBe(Object.keys(policy.conditions).length);
    }));
  });

  it('returns exactly the enabled matching policies, block before coach before log, stable by name then id', () => {
    fc.assert(fc.property(fc.array(policyArb(), { maxLength: 12 }), interactionArb, (policies, interaction) => {
      const decisions = evaluate(policies, interaction);
      const expectedIds = policies.filter((p) => p.enabled && holdsAll(p.conditions, interaction)).map((p) => p.id);
      expect(decisions.map((d) => d.policy_id).sort()).toEqual(expectedIds.sort());
      for (let i = 1; i < decisions.length; i += 1) {
        const [a, b] = [decisions[i - 1]!, decisions[i]!];
        const order = RANK[a.action] - RANK[b.action] ||
          (a.policy_name < b.policy_name ? -1 : a.policy_name > b.policy_name ? 1 : 0) ||
          (a.policy_id < b.policy_id ? -1 : a.policy_id > b.policy_id ? 1 : 0);
        expect(order).toBeLessThanOrEqual(0);
      }
    }));
  });

  it('does not depend on the order the policies come in', () => {
    const policiesAndShuffle = fc.uniqueArray(policyArb(), { selector: (p) => p.id, maxLength: 10 })
      .chain((policies) => fc.tuple(fc.constant(policies),
        fc.shuffledSubarray(policies, { minLength: policies.length, maxLength: policies.length })));
    fc.assert(fc.property(policiesAndShuffle, interactionArb, ([policies, shuffled], interaction) => {
      expect(evaluate(shuffled, interaction)).toEqual(evaluate(policies, interaction));
    }));
  });
});
