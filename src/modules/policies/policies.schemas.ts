import { type Static, Type } from 'typebox';
import { NextCursor, PageQuery } from '../../lib/pagination.js';
import { IsoDate, StringEnum, Uuid } from '../../lib/schemas.js';
import {
  DIRECTIONS, INTERACTION_TYPES, LIMITS, POLICY_ACTIONS, SOURCES, STORABLE_TEXT_PATTERN,
} from '../interactions/interactions.schemas.js';

export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const CONDITION_KEYS = [
  'platform_ids', 'classification_types', 'min_risk_score', 'directions', 'sources', 'interaction_types',
] as const;
const MAX_LIST_CONDITION = 100;

const list = <T extends Parameters<typeof Type.Array>[0]>(item: T, description: string) =>
  Type.Optional(Type.Array(item, { minItems: 1, maxItems: MAX_LIST_CONDITION, description }));

/** All optional, all must hold; an unknown key is refused (a typo must not widen a policy to everything). */
export const ConditionsSchema = Type.Object({
  platform_ids: list(Type.String({ minLength: 1, maxLength: LIMITS.platformIdInputLength }),
    'The interaction is on one of these platforms (normalised like platform_id)'),
  classification_types: list(Type.String({ minLength: 1, maxLength: LIMITS.classificationTypeLength,
    pattern: STORABLE_TEXT_PATTERN }), 'The interaction has a classification of one of these types (exact match)'),
  min_risk_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'risk_score >= this' })),
  directions: list(StringEnum(DIRECTIONS), 'The interaction has one of these directions'),
  sources: list(StringEnum(SOURCES), 'The interaction comes from one of these sources'),
  interaction_types: list(StringEnum(INTERACTION_TYPES), 'The interaction is of one of these types'),
}, { propertyNames: { enum: [...CONDITION_KEYS] } });
export type ConditionsInput = Static<typeof ConditionsSchema>;

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Description = Type.String({ maxLength: 2000 });

export const CreatePolicyBody = Type.Object({
  name: Name,
  description: Type.Optional(Description),
  action: StringEnum(POLICY_ACTIONS),
  severity: Type.Optional(StringEnum(SEVERITIES, { default: 'medium' })),
  enabled: Type.Optional(Type.Boolean({ default: true })),
  conditions: Type.Optional(ConditionsSchema),
});
export type CreatePolicyInput = Static<typeof CreatePolicyBody>;

export const UpdatePolicyBody = Type.Object({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  action: Type.Optional(StringEnum(POLICY_ACTIONS)),
  severity: Type.Optional(StringEnum(SEVERITIES)),
  enabled: Type.Optional(Type.Boolean()),
  conditions: Type.Optional(ConditionsSchema),
});
export type UpdatePolicyInput = Static<typeof UpdatePolicyBody>;

export const PolicySchema = Type.Object({
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
  }),
  created_at: IsoDate,
  updated_at: IsoDate,
});
export type PolicyResponse = Static<typeof PolicySchema>;

export const PolicyListQuery = Type.Object({
  ...PageQuery,
  enabled: Type.Optional(Type.Boolean()),
  action: Type.Optional(StringEnum(POLICY_ACTIONS)),
});
export type PolicyListFilters = Static<typeof PolicyListQuery>;

export const PolicyListSchema = Type.Object({ policies: Type.Array(PolicySchema), total: Type.Integer(), next_cursor: NextCursor });
export const PolicyParams = Type.Object({ policy_id: Type.String({ maxLength: 100 }) });
