import { type Static, Type } from 'typebox';
import { NextCursor, PageQuery } from '../../kernel/paging/pagination.js';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { component, IsoDate, Nullable, ref, StringEnum, Uuid } from '../../kernel/schemas.js';
import { SEVERITIES } from '../../kernel/vocabulary.js';

export const ALERT_STATUSES = ['open', 'resolved'] as const;

export const AlertSchema = component('Alert', Type.Object({
  id: Uuid,
  interaction_id: Uuid,
  policy_id: Uuid,
  policy_name: Type.String({ description: 'The name of the policy when the alert was raised' }),
  severity: StringEnum(SEVERITIES),
  status: StringEnum(ALERT_STATUSES),
  created_at: IsoDate,
  resolved_at: Nullable(IsoDate),
  resolved_by: Nullable(Type.String({ description: 'Id of the user who resolved the alert' })),
}), {
  description: 'Raised when an interaction matches a policy; open until an administrator resolves it.',
  example: {
    id: EXAMPLE_IDS.alert, interaction_id: EXAMPLE_IDS.interaction, policy_id: EXAMPLE_IDS.policy,
    policy_name: 'No personal data to chatbots', severity: 'high', status: 'open', created_at: '2026-03-02T09:15:27.401Z',
    resolved_at: null, resolved_by: null,
  },
});
export type AlertResponse = Static<typeof AlertSchema>;

export const AlertListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(ALERT_STATUSES)),
  severity: Type.Optional(StringEnum(SEVERITIES)),
  policy_id: Type.Optional(Uuid),
  interaction_id: Type.Optional(Uuid),
  start_date: Type.Optional(IsoDate),
  end_date: Type.Optional(IsoDate),
});
export type AlertListFilters = Static<typeof AlertListQuery>;

export const AlertListSchema = component('AlertList', Type.Object({
  alerts: Type.Array(ref(AlertSchema)), total: Type.Integer(), next_cursor: NextCursor,
}), { description: 'A page of alerts.', example: { alerts: [AlertSchema.examples[0]], total: 1, next_cursor: null } });
export const AlertParams = Type.Object({ alert_id: Type.String({ maxLength: 100 }) });
