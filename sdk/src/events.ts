import type { webhooks } from './generated/openapi.js';

// The webhook event envelopes, from the OpenAPI document's `webhooks` section.

/** The body of a webhook delivery, discriminated by `event_type`. */
export type WebhookEvent = {
  [K in keyof webhooks]: webhooks[K] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
}[keyof webhooks];
export type WebhookEventType = WebhookEvent['event_type'];
/** The envelope of one event type, e.g. `WebhookEventOf<'alert.created'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { event_type: T }>;

/** Every event type, e.g. to subscribe a webhook to all of them. */
export const WEBHOOK_EVENT_TYPES = [
  'interaction.created', 'interaction.policy_violated', 'interaction.high_risk', 'interaction.classified',
  'alert.created', 'alert.severity_critical', 'alert.severity_high', 'alert.resolved',
  'policy.created', 'policy.updated', 'policy.deleted', 'policy.enabled', 'policy.disabled',
  'user.invited', 'user.activated', 'user.role_changed', 'user.deleted', 'platform.discovered', 'audit.entry',
] as const satisfies readonly WebhookEventType[];

// Fails to compile when the envelopes name an event type the list above lacks.
export type MissingEventTypes = Exclude<WebhookEventType, (typeof WEBHOOK_EVENT_TYPES)[number]>;
true satisfies ([MissingEventTypes] extends [never] ? true : false);
