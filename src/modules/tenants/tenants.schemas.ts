import { Type } from 'typebox';

const RetentionDays = (minimum: number, what: string) => Type.Unsafe<number | null>({
  type: ['integer', 'null'], minimum, maximum: 36_500,
  description: `Days ${what} are kept, at least ${minimum}; null keeps them forever`,
});

/** The caller's tenant and its settings. */
export const TenantSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  retention_days: RetentionDays(1, 'interactions and their alerts'),
  audit_retention_days: RetentionDays(365, 'audit log entries'),
  validate_signals: Type.Boolean({ description: 'Whether the service checks the values of the risk signals it receives' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

/** Settings to change; those left out keep their value. */
export const UpdateTenantBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  retention_days: Type.Optional(RetentionDays(1, 'interactions and their alerts')),
  audit_retention_days: Type.Optional(RetentionDays(365, 'audit log entries')),
  validate_signals: Type.Optional(Type.Boolean()),
});
