/** Every event type the service emits: the one list webhooks subscribe from. */
export const EVENT_TYPES = [
  'interaction.created',
  'interaction.policy_violated',
  'interaction.high_risk',
  'interaction.classified',
  'alert.created',
  'alert.severity_critical',
  'alert.severity_high',
  'alert.resolved',
  'policy.created',
  'policy.updated',
  'policy.deleted',
  'policy.enabled',
  'policy.disabled',
  'user.invited',
  'user.activated',
  'user.role_changed',
  'user.deleted',
  'platform.discovered',
  'audit.entry',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
