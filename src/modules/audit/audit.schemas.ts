import { Type } from 'typebox';

/** The filters of the audit log, for its list and its export. */
export const AuditFilterFields = {
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  start_date: Type.Optional(Type.String({ format: 'date-time' })),
  end_date: Type.Optional(Type.String({ format: 'date-time' })),
};
