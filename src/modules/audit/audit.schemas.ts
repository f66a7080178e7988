import { type Static, Type } from 'typebox';
import { Nullable } from '../../lib/schemas.js';

/** The filters of the audit log, for its list and its export. */
export const AuditFilterFields = {
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  start_date: Type.Optional(Type.String({ format: 'date-time' })),
  end_date: Type.Optional(Type.String({ format: 'date-time' })),
};

/** An audit entry as the API returns it (the list, the export and the `audit.entry` event). */
export const AuditEntrySchema = Type.Object({
  id: Type.String(),
  occurred_at: Type.String({ format: 'date-time' }),
  actor_type: Type.String(),
  actor_id: Nullable(Type.String()),
  actor_label: Nullable(Type.String()),
  action: Type.String(),
  target_type: Nullable(Type.String()),
  target_id: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
  ip: Nullable(Type.String()),
  request_id: Nullable(Type.String()),
});
export type AuditEntryResponse = Static<typeof AuditEntrySchema>;
