import { dayToDateTime } from '../../lib/url-state.js';

/** The audit log's filters as the URL holds them (dates as days or date-times). */
export const FILTER_KEYS = ['action', 'actor_id', 'start_date', 'end_date'] as const;

/** The URL's filters as the API's query (list and export take the same ones). */
export function auditQuery(params: URLSearchParams): { action?: string; actor_id?: string; start_date?: string; end_date?: string } {
  return {
    action: params.get('action') || undefined,
    actor_id: params.get('actor_id') || undefined,
    start_date: dayToDateTime(params.get('start_date'), false),
    end_date: dayToDateTime(params.get('end_date'), true),
  };
}

/** Actions the service records, offered as suggestions; any other value can be typed. */
export const KNOWN_ACTIONS = [
  'auth.login', 'auth.login_failed',
  'user.invited', 'user.invitation_resent', 'user.invitation_accepted', 'user.updated', 'user.profile_updated',
  'user.role_changed', 'user.status_changed', 'user.password_reset', 'user.deleted',
  'api_key.created', 'api_key.revoked',
  'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.redelivery_requested', 'webhook.disabled',
  'policy.created', 'policy.updated', 'policy.deleted', 'policy.enabled', 'policy.disabled',
  'alert.resolved', 'interaction.deleted', 'interactions.exported', 'interactions.erased', 'audit_log.exported',
  'tenant.created', 'tenant.updated', 'retention.applied',
];
