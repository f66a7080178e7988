import type { paths, webhooks } from './generated/openapi.js';

// The webhook event envelopes: the OpenAPI document's `webhooks` section once it describes them,
// until then the type below, built from the contract (service-api.md "Events", decisions.md) and
// the resources as the API returns them. This file is the one place to change.

type Json<P extends keyof paths, M extends keyof paths[P]> =
  paths[P][M] extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

type Interaction = Json<'/api/v1/interactions/{interaction_id}', 'get'>;
type Alert = Json<'/api/v1/alerts/{alert_id}', 'get'>;
type Policy = Json<'/api/v1/policies/{policy_id}', 'get'>;
type User = Json<'/api/v1/users/{user_id}', 'get'>;

/** Interaction events carry the interaction, its policy decisions without `matched_conditions`. */
type InteractionEventData = Omit<Interaction, 'policy_decisions'> & {
  policy_decisions: Omit<Interaction['policy_decisions'][number], 'matched_conditions'>[];
};

interface EventData {
  'interaction.created': InteractionEventData;
  'interaction.policy_violated': InteractionEventData;
  'interaction.high_risk': InteractionEventData;
  'interaction.classified': InteractionEventData;
  'alert.created': Alert;
  'alert.severity_critical': Alert;
  'alert.severity_high': Alert;
  'alert.resolved': Alert;
  'policy.created': Policy;
  'policy.updated': Policy;
  'policy.deleted': { id: string };
  'policy.enabled': Policy;
  'policy.disabled': Policy;
  'user.invited': User;
  'user.activated': User;
  'user.role_changed': User;
  'user.deleted': { id: string };
}

type ContractEnvelope = {
  [T in keyof EventData]: { id: string; timestamp: string; event_type: T; tenant_id: string; data: EventData[T] };
}[keyof EventData];

type DocumentEnvelope = {
  [K in keyof webhooks]: webhooks[K] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
}[keyof webhooks];

/** The body of a webhook delivery, discriminated by `event_type`. */
export type WebhookEvent = string extends keyof webhooks ? ContractEnvelope
  : [DocumentEnvelope] extends [never] ? ContractEnvelope : DocumentEnvelope;
export type WebhookEventType = WebhookEvent['event_type'];
/** The envelope of one event type, e.g. `WebhookEventOf<'alert.created'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { event_type: T }>;

/** Every event type, e.g. to subscribe a webhook to all of them. */
export const WEBHOOK_EVENT_TYPES = [
  'interaction.created', 'interaction.policy_violated', 'interaction.high_risk', 'interaction.classified',
  'alert.created', 'alert.severity_critical', 'alert.severity_high', 'alert.resolved',
  'policy.created', 'policy.updated', 'policy.deleted', 'policy.enabled', 'policy.disabled',
  'user.invited', 'user.activated', 'user.role_changed', 'user.deleted',
] as const satisfies readonly WebhookEventType[];

// Fails to compile when the envelopes name an event type the list above lacks.
export type MissingEventTypes = Exclude<WebhookEventType, (typeof WEBHOOK_EVENT_TYPES)[number]>;
true satisfies (string extends WebhookEventType ? true : [MissingEventTypes] extends [never] ? true : false);
