import { type Static, Type } from 'typebox';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { NextCursor, PageQuery } from '../../kernel/paging/pagination.js';
import { component, Nullable, ref } from '../../kernel/schemas.js';

/** The filters of the audit log, for its list and its export. */
export const AuditFilterFields = {
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  start_date: Type.Optional(Type.String({ format: 'date-time' })),
  end_date: Type.Optional(Type.String({ format: 'date-time' })),
};

export const AuditQuery = Type.Object({ ...PageQuery, ...AuditFilterFields });

const auditExample = {
  id: '0195b1d4-5a6b-7c8d-9e0f-1a2b3c4d5e11', occurred_at: '2026-03-02T09:40:00.000Z', actor_type: 'user',
  actor_id: EXAMPLE_IDS.admin, actor_label: 'admin@example.com', action: 'policy.updated', target_type: 'policy',
  target_id: EXAMPLE_IDS.policy, details: { changed: ['severity'] }, ip: '203.0.113.7', request_id: EXAMPLE_IDS.requestId,
};

export const AuditEntrySchema = component('AuditEntry', Type.Object({
  id: Type.String(),
  occurred_at: Type.String({ format: 'date-time' }),
  actor_type: Type.String({ description: '`user`, `api_key` or `system`' }),
  actor_id: Nullable(Type.String()),
  actor_label: Nullable(Type.String({ description: "The user's email or the API key's name at the time" })),
  action: Type.String({ description: 'e.g. `user.invited`, `policy.updated`, `auth.login`' }),
  target_type: Nullable(Type.String()),
  target_id: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
  ip: Nullable(Type.String()),
  request_id: Nullable(Type.String()),
}), { description: 'One administrative change or login, who made it and from where.', example: auditExample });

export type AuditEntryResponse = Static<typeof AuditEntrySchema>;

export const AuditLogSchema = component('AuditLog', Type.Object({
  entries: Type.Array(ref(AuditEntrySchema)), total: Type.Integer(), next_cursor: NextCursor,
}), { description: 'A page of the audit log.', example: { entries: [auditExample], total: 1, next_cursor: null } });
