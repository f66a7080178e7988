import { type Static, Type } from 'typebox';
import { NextCursor, PageQuery } from '../../kernel/paging/pagination.js';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { component, IsoDate, Nullable, ref, StringEnum, Uuid } from '../../kernel/schemas.js';
import {
  DIRECTIONS, INTERACTION_TYPES, LIMITS, PLATFORM_STATUSES, POLICY_ACTIONS, SEVERITIES, SOURCES, STORABLE_TEXT_PATTERN,
} from '../../kernel/vocabulary.js';
export const CONDITION_KEYS = [
  'platform_ids', 'classification_types', 'min_risk_score', 'directions', 'sources', 'interaction_types', 'validated_only',
  'platform_statuses',
] as const;
const MAX_LIST_CONDITION = 100;

const list = <T extends Parameters<typeof Type.Array>[0]>(item: T, description: string) =>
  Type.Optional(Type.Array(item, { minItems: 1, maxItems: MAX_LIST_CONDITION, description }));

/** All optional, all must hold; an unknown key is refused (a typo must not widen a policy to everything). */
export const ConditionsSchema = component('PolicyConditions', Type.Object({
  platform_ids: list(Type.String({ minLength: 1, maxLength: LIMITS.platformIdInputLength }),
    'The interaction is on one of these platforms (normalised like platform_id)'),
  classification_types: list(Type.String({ minLength: 1, maxLength: LIMITS.classificationTypeLength,
    pattern: STORABLE_TEXT_PATTERN }), 'The interaction has a classification of one of these types (exact match)'),
  min_risk_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'risk_score >= this' })),
  directions: list(StringEnum(DIRECTIONS), 'The interaction has one of these directions'),
  sources: list(StringEnum(SOURCES), 'The interaction comes from one of these sources'),
  interaction_types: list(StringEnum(INTERACTION_TYPES), 'The interaction is of one of these types'),
  validated_only: Type.Optional(Type.Boolean({
    description: 'Count only the classifications the service validated (`validated: true`): with '
      + '`classification_types`, one of those types must be validated; without, any validated classification. '
      + 'Default false' })),
  platform_statuses: list(StringEnum(PLATFORM_STATUSES), "The tenant's status of the interaction's platform is one of "
    + 'these (a platform never given one is `unsanctioned`), as it is when the interaction is created'),
}, { propertyNames: { enum: [...CONDITION_KEYS] } }), {
  description: 'What an interaction must match for the policy to apply: every condition given must hold; none matches all.',
  example: { platform_ids: ['chatgpt', 'claude'], classification_types: ['EMAIL', 'IBAN'], min_risk_score: 0.7 },
});
export type ConditionsInput = Static<typeof ConditionsSchema>;

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Description = Type.String({ maxLength: 2000 });
const Message = Type.String({ minLength: 1, maxLength: LIMITS.policyMessageLength, pattern: STORABLE_TEXT_PATTERN,
  description: 'What the client (a browser extension) shows the user when this policy coaches or blocks' });

export const CreatePolicyBody = component('PolicyCreate', Type.Object({
  name: Name,
  description: Type.Optional(Description),
  action: StringEnum(POLICY_ACTIONS),
  severity: Type.Optional(StringEnum(SEVERITIES, { default: 'medium' })),
  enabled: Type.Optional(Type.Boolean({ default: true })),
  conditions: Type.Optional(ref(ConditionsSchema)),
  message: Type.Optional(Message),
}), {
  description: 'A new policy.',
  example: {
    name: 'No personal data to chatbots', description: 'Blocks prompts carrying emails or IBANs', action: 'block',
    severity: 'high', enabled: true, conditions: { platform_ids: ['chatgpt', 'claude'], classification_types: ['EMAIL', 'IBAN'] },
  },
});
export type CreatePolicyInput = Static<typeof CreatePolicyBody>;

export const UpdatePolicyBody = component('PolicyUpdate', Type.Object({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  action: Type.Optional(StringEnum(POLICY_ACTIONS)),
  severity: Type.Optional(StringEnum(SEVERITIES)),
  enabled: Type.Optional(Type.Boolean()),
  conditions: Type.Optional(ref(ConditionsSchema)),
  message: Type.Optional(Type.Union([Message, Type.Null()], { description: 'The new message; null removes it' })),
}), {
  description: 'A change of a policy: fields left out keep their value; `conditions`, when given, replace the old ones whole.',
  example: { severity: 'critical', conditions: { classification_types: ['EMAIL', 'IBAN', 'SSN'] } },
});
export type UpdatePolicyInput = Static<typeof UpdatePolicyBody>;

export const PolicySchema = component('Policy', Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  action: StringEnum(POLICY_ACTIONS),
  severity: StringEnum(SEVERITIES),
  enabled: Type.Boolean(),
  conditions: Type.Object({
    platform_ids: Type.Optional(Type.Array(Type.String())),
    classification_types: Type.Optional(Type.Array(Type.String())),
    min_risk_score: Type.Optional(Type.Number()),
    directions: Type.Optional(Type.Array(StringEnum(DIRECTIONS))),
    sources: Type.Optional(Type.Array(StringEnum(SOURCES))),
    interaction_types: Type.Optional(Type.Array(StringEnum(INTERACTION_TYPES))),
    validated_only: Type.Optional(Type.Boolean()),
    platform_statuses: Type.Optional(Type.Array(StringEnum(PLATFORM_STATUSES))),
  }),
  message: Nullable(Type.String({ description: 'Shown by the client when the policy coaches or blocks; null: none' })),
  created_at: IsoDate,
  updated_at: IsoDate,
}), {
  description: 'A rule that judges every interaction recorded after it: when its conditions match, its action applies and an alert is raised.',
  example: {
    id: EXAMPLE_IDS.policy, name: 'No personal data to chatbots', description: 'Blocks prompts carrying emails or IBANs',
    action: 'block', severity: 'high', enabled: true,
    conditions: { platform_ids: ['chatgpt', 'claude'], classification_types: ['EMAIL', 'IBAN'] },
    message: 'Personal data must not be sent to AI assistants: remove it, or use the approved tool.',
    created_at: '2026-01-20T14:00:00.000Z', updated_at: '2026-01-20T14:00:00.000Z',
  },
});
export type PolicyResponse = Static<typeof PolicySchema>;

export const PolicyListQuery = Type.Object({
  ...PageQuery,
  enabled: Type.Optional(Type.Boolean()),
  action: Type.Optional(StringEnum(POLICY_ACTIONS)),
});
export type PolicyListFilters = Static<typeof PolicyListQuery>;

export const PolicyListSchema = component('PolicyList', Type.Object({
  policies: Type.Array(ref(PolicySchema)), total: Type.Integer(), next_cursor: NextCursor,
}), { description: 'A page of policies.', example: { policies: [PolicySchema.examples[0]], total: 1, next_cursor: null } });
export const PolicyParams = Type.Object({ policy_id: Type.String({ maxLength: 100 }) });

export const DryRunQuery = Type.Object({
  start_date: Type.Optional(IsoDate),
  end_date: Type.Optional(IsoDate),
});

const ActionCounts = Type.Object({
  block: Type.Integer({ minimum: 0 }), coach: Type.Integer({ minimum: 0 }), log: Type.Integer({ minimum: 0 }),
}, { description: 'Matched interactions by the strongest action they would get: this policy\'s, or a stronger one they already had' });

export const DryRunSchema = component('PolicyDryRun', Type.Object({
  matched: Type.Integer({ minimum: 0, description: 'Interactions examined that the policy matches' }),
  by_action: ActionCounts,
  alerts: Type.Integer({ minimum: 0, description: 'Alerts it would raise: one per match for block and coach, none for log' }),
  sample_ids: Type.Array(Uuid, { maxItems: 20, description: 'The newest matching interactions, at most 20' }),
  scanned: Type.Integer({ minimum: 0, description: 'Interactions examined, newest first in the range' }),
  truncated: Type.Boolean({ description: 'True when older interactions of the range were not examined (POLICY_DRY_RUN_MAX_ROWS)' }),
}), {
  description: 'What a policy would have done to the interactions already stored: nothing is stored.',
  example: {
    matched: 1843, by_action: { block: 1843, coach: 0, log: 0 }, alerts: 1843,
    sample_ids: [EXAMPLE_IDS.interaction], scanned: 412_000, truncated: false,
  },
});
