import { type Static, type TSchema, Type } from 'typebox';
import { inlineRefs, StringEnum } from '../../kernel/schemas.js';
import { AlertSchema } from '../../modules/alerts/alerts.schemas.js';
import { AuditEntrySchema } from '../../modules/audit/audit.schemas.js';
import { InteractionSchema, PolicyDecisionSchema } from '../../modules/interactions/interactions.schemas.js';
import { PolicySchema } from '../../modules/policies/policies.schemas.js';
import { UserSchema } from '../../modules/users/users.schemas.js';
import type { EventType } from '../../platform/outbox/event-types.js';

/*
 * The `data` of every event, built from the schemas the API's own responses use, so that an event
 * cannot drift from the resource it carries. Published schemas stay open to new fields (receivers
 * must ignore fields they do not know); the tests check them closed, so nothing undeclared is sent.
 */

/** A decision as events carry it: the API's decision without `matched_conditions` (nor a create's `message`). */
const EventPolicyDecisionSchema = Type.Omit(PolicyDecisionSchema, ['matched_conditions', 'message']);

export const InteractionEventDataSchema = Type.Object({
  ...inlineRefs(InteractionSchema.properties),
  policy_decisions: Type.Array(EventPolicyDecisionSchema, {
    description: 'The policies that matched, strongest action first (block, coach, log)',
  }),
}, { description: 'The interaction as the API returns it, each policy decision without `matched_conditions`' });

export type InteractionEventData = Static<typeof InteractionEventDataSchema>;

export const AlertEventDataSchema = Type.Object(inlineRefs(AlertSchema.properties), { description: 'The alert as the API returns it' });
export const PolicyEventDataSchema = Type.Object(inlineRefs(PolicySchema.properties), { description: 'The policy as the API returns it' });
export const UserEventDataSchema = Type.Object(inlineRefs(UserSchema.properties), {
  description: 'The user as the API returns it (never a secret)',
});
export const DeletedEventDataSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The id of the deleted resource' }),
}, { description: 'Only the id of what was deleted' });

/** The kinds of `data`, each under the name the OpenAPI document gives it. */
export const EVENT_DATA_SCHEMAS = {
  InteractionEventData: InteractionEventDataSchema,
  AlertEventData: AlertEventDataSchema,
  PolicyEventData: PolicyEventDataSchema,
  UserEventData: UserEventDataSchema,
  DeletedEventData: DeletedEventDataSchema,
  AuditEntryEventData: Type.Object(inlineRefs(AuditEntrySchema.properties), { description: 'The audit entry as the API returns it' }),
} as const;
export type EventDataName = keyof typeof EVENT_DATA_SCHEMAS;

/**
 * The whole body of a delivery of `eventType`: the envelope the contract defines around `data`
 * (a schema, or a `$ref` to one where the OpenAPI document names it).
 */
export function envelopeSchema(eventType: EventType, data: TSchema | { $ref: string }, description: string) {
  return Type.Object({
    id: Type.String({ pattern: '^evt_', description: 'The event id, prefix `evt_`: the same on every attempt and redelivery, '
      + 'also sent as `X-Service-Event-Id` and `webhook-id`; deduplicate on it' }),
    timestamp: Type.String({ format: 'date-time', description: 'When the change that caused the event was made (ISO 8601, UTC)' }),
    // A one-value enum rather than `const`: the OpenAPI generator rewrites `const` so, and both must read the same.
    event_type: StringEnum([eventType], { description: 'The event type, also sent as `X-Service-Event`' }),
    tenant_id: Type.String({ format: 'uuid', description: 'The tenant (organisation) the event belongs to' }),
    data: data as TSchema,
  }, { title: eventSchemaName(eventType), description });
}

/** `interaction.policy_violated` -> `InteractionPolicyViolatedEvent`. */
export function eventSchemaName(eventType: EventType): string {
  return `${pascal(eventType)}Event`;
}

/** `interaction.policy_violated` -> `interactionPolicyViolatedEvent`. */
export function eventOperationId(eventType: EventType): string {
  const name = eventSchemaName(eventType);
  return name[0]!.toLowerCase() + name.slice(1);
}

const pascal = (text: string) => text.split(/[._]/).map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
