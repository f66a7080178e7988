import { type Static, Type } from 'typebox';
import { NextCursor, PageQuery } from '../../kernel/paging/pagination.js';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { component, IsoDate, Nullable, ref } from '../../kernel/schemas.js';

export const PeopleRiskQuery = Type.Object({
  ...PageQuery,
  start_date: Type.Optional(IsoDate),
  end_date: Type.Optional(IsoDate),
});
export type PeopleRiskFilters = Static<typeof PeopleRiskQuery>;

const Count = Type.Integer({ minimum: 0 });

export const PersonRiskSchema = component('PersonRisk', Type.Object({
  user_id: Type.String({ format: 'uuid', description: 'The `user_id` of the interactions (a member of the tenant or not)' }),
  score: Type.Integer({ minimum: 1, description: 'high_risk + 2 x violations + 5 x sensitive_types + 10 x unsanctioned_platforms' }),
  high_risk: Type.Integer({ minimum: 0, description: 'Interactions of the person in the period with `risk_score >= 0.7`' }),
  violations: Type.Integer({ minimum: 0, description: 'Interactions of the person in the period that a `block` or `coach` '
    + 'policy matched (those that raised an alert)' }),
  sensitive_types: Type.Integer({ minimum: 0, description: 'Distinct classification types (`EMAIL`, `IBAN`, …) in the '
    + "person's interactions of the period" }),
  unsanctioned_platforms: Type.Integer({ minimum: 0, description: 'Distinct platforms the person used in the period whose '
    + 'status is now `unsanctioned` or `blocked`' }),
}), {
  description: "One person's risk over a period: the score and the figures it is made of (docs/platforms.md, \"People at risk\").",
  example: { user_id: EXAMPLE_IDS.user, score: 79, high_risk: 12, violations: 6, sensitive_types: 3, unsanctioned_platforms: 4 },
});
export type PersonRisk = Static<typeof PersonRiskSchema>;

export const PeopleRiskListSchema = component('PeopleRiskList', Type.Object({
  start_date: Nullable(IsoDate),
  end_date: Nullable(IsoDate),
  people: Type.Array(ref(PersonRiskSchema)),
  total: Count,
  next_cursor: NextCursor,
}), {
  description: 'The people with a score above zero in the period, highest score first (ties by `user_id`, descending).',
  example: {
    start_date: '2026-03-01T00:00:00.000Z', end_date: '2026-03-31T23:59:59.999Z', people: [PersonRiskSchema.examples[0]], total: 1,
    next_cursor: null,
  },
});
export type PeopleRiskList = Static<typeof PeopleRiskListSchema>;
