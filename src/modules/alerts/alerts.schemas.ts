import { type Static, Type } from 'typebox';
import { NextCursor, PageQuery } from '../../lib/pagination.js';
import { IsoDate, Nullable, StringEnum, Uuid } from '../../lib/schemas.js';
import { SEVERITIES } from '../policies/policies.schemas.js';

export const ALERT_STATUSES = ['open', 'resolved'] as const;

export const AlertSchema = Type.Object({
  id: Uuid,
  interaction_id: Uuid,
  policy_id: Uuid,
  policy_name: Type.String({ description: 'The name of the policy when the alert was raised' }),
  severity: StringEnum(SEVERITIES),
  status: StringEnum(ALERT_STATUSES),
  created_at: IsoDate,
  resolved_at: Nullable(IsoDate),
  resolved_by: Nullable(Type.String({ description: 'Id of the user who resolved the alert' })),
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

export const AlertListSchema = Type.Object({ alerts: Type.Array(AlertSchema), total: Type.Integer(), next_cursor: NextCursor });
export const AlertParams = Type.Object({ alert_id: Type.String({ maxLength: 100 }) });
