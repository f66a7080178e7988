import { Type } from 'typebox';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { component, StringEnum } from '../../kernel/schemas.js';

const RetentionDays = (minimum: number, what: string) => Type.Unsafe<number | null>({
  type: ['integer', 'null'], minimum, maximum: 36_500,
  description: `Days ${what} are kept, at least ${minimum}; null keeps them forever`,
});

const SignalValues = StringEnum(['keep', 'mask'] as const, {
  description: '`keep`: detected values are stored encrypted and returned as sent; `mask`: only their masked form '
    + '(all but the last 4 characters of the normalised value as `*`) is stored and returned, for interactions '
    + 'created after the change',
});

export const TenantSchema = component('Tenant', Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  retention_days: RetentionDays(1, 'interactions and their alerts'),
  audit_retention_days: RetentionDays(365, 'audit log entries'),
  validate_signals: Type.Boolean({ description: 'Whether the service checks the values of the risk signals it receives' }),
  signal_values: SignalValues,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}), {
  description: 'The organization the caller belongs to, and its settings; every resource belongs to exactly one.',
  example: {
    id: EXAMPLE_IDS.tenant, name: 'Example Corp', retention_days: 365, audit_retention_days: null, validate_signals: true,
    signal_values: 'keep', created_at: '2026-01-05T09:00:00.000Z', updated_at: '2026-02-11T16:20:00.000Z',
  },
});

export const UpdateTenantBody = component('TenantUpdate', Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  retention_days: Type.Optional(RetentionDays(1, 'interactions and their alerts')),
  audit_retention_days: Type.Optional(RetentionDays(365, 'audit log entries')),
  validate_signals: Type.Optional(Type.Boolean()),
  signal_values: Type.Optional(SignalValues),
}), {
  description: 'The settings to change; those left out keep their value.',
  example: { retention_days: 365, validate_signals: true },
});
