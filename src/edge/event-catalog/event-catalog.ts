import type { TObject } from 'typebox';
import { EVENT_TYPES, type EventType } from '../../platform/outbox/event-types.js';
import { EXAMPLE_SEED, sampleEnvelope } from './event-samples.js';
import { EVENT_DATA_SCHEMAS, type EventDataName, envelopeSchema } from './event-schemas.js';
import type { EventEnvelope } from '../../platform/outbox/outbox.js';

/** One event type as `GET /api/v1/event-types` and the OpenAPI `webhooks` section describe it. */
export interface EventCatalogEntry {
  type: EventType;
  /** When the event is emitted and what its `data` is. */
  description: string;
  /** Which kind of `data` it carries (the name of that schema in the OpenAPI document). */
  dataName: EventDataName;
  /** JSON Schema of the whole delivery body: the envelope with its `data`. */
  schema: TObject;
  /** A realistic delivery body of this type. */
  sample: EventEnvelope;
}

const INTERACTION_DATA = '`data`: the interaction as the API returns it, each policy decision without `matched_conditions`.';

const DEFINITIONS: Record<EventType, { description: string; data: EventDataName }> = {
  'interaction.created': {
    data: 'InteractionEventData',
    description: `An interaction was stored: every single create and every stored item of a batch. ${INTERACTION_DATA}`,
  },
  'interaction.policy_violated': {
    data: 'InteractionEventData',
    description: 'A stored interaction matched at least one enabled policy (block, coach or log); sent beside '
      + `\`interaction.created\`. ${INTERACTION_DATA} \`policy_decisions\` lists the matched policies, strongest action first.`,
  },
  'interaction.high_risk': {
    data: 'InteractionEventData',
    description: `A stored interaction has a \`risk_score\` of 0.8 or more; sent beside \`interaction.created\`. ${INTERACTION_DATA}`,
  },
  'interaction.classified': {
    data: 'InteractionEventData',
    description: 'The service validated the classifications of a stored interaction (the tenant\'s `validate_signals` '
      + 'is on and the interaction has at least one): each classification carries `validated`, true when its value passed '
      + `its type's check (CREDIT_CARD, IBAN, NIR, SIRET, EMAIL, IP_ADDRESS). Sent beside \`interaction.created\`. ${INTERACTION_DATA}`,
  },
  'alert.created': {
    data: 'AlertEventData',
    description: 'An interaction matched a `block` or `coach` policy: one alert per such policy, raised with the '
      + 'interaction. `data`: the alert as the API returns it (`status: open`).',
  },
  'alert.severity_critical': {
    data: 'AlertEventData',
    description: 'An alert of `critical` severity was raised; sent beside `alert.created`. `data`: the alert.',
  },
  'alert.severity_high': {
    data: 'AlertEventData',
    description: 'An alert of `high` severity was raised; sent beside `alert.created`. `data`: the alert.',
  },
  'alert.resolved': {
    data: 'AlertEventData',
    description: 'An admin resolved an open alert (`POST /alerts/{id}/resolve`). `data`: the alert, `status: resolved`, '
      + 'with `resolved_at` and `resolved_by` (the id of that user).',
  },
  'policy.created': {
    data: 'PolicyEventData',
    description: 'A policy was created (`POST /policies`). `data`: the policy as the API returns it.',
  },
  'policy.updated': {
    data: 'PolicyEventData',
    description: 'A `PUT /policies/{id}` changed a policy (a PUT that changes nothing emits nothing; one that changes '
      + 'only `enabled` emits `policy.enabled`/`policy.disabled` instead, and one that changes `enabled` and more emits '
      + 'this event, then that one). `data`: the policy after the change.',
  },
  'policy.deleted': {
    data: 'DeletedEventData',
    description: 'A policy was deleted (`DELETE /policies/{id}`). `data`: `{ "id": "<policy id>" }`.',
  },
  'policy.enabled': {
    data: 'PolicyEventData',
    description: 'A disabled policy was enabled (`POST /policies/{id}/enable`, or a PUT setting `enabled: true`). '
      + '`data`: the policy, `enabled: true`.',
  },
  'policy.disabled': {
    data: 'PolicyEventData',
    description: 'An enabled policy was disabled (`POST /policies/{id}/disable`, or a PUT setting `enabled: false`). '
      + '`data`: the policy, `enabled: false`.',
  },
  'user.invited': {
    data: 'UserEventData',
    description: 'A user was invited (`POST /users/invite`). `data`: the user as the API returns it, `status: pending`, '
      + 'with `invited_by` (the inviting user\'s email) and `invitation_expires_at`.',
  },
  'user.activated': {
    data: 'UserEventData',
    description: 'An invited user accepted the invitation and set a password (`POST /auth/accept-invite`), or an '
      + 'identity provider created an active user or activated a pending one (SCIM). `data`: the user, `status: active`.',
  },
  'user.role_changed': {
    data: 'UserEventData',
    description: 'An admin changed a user\'s role (`PUT /users/{id}` with a different `role`), or an identity provider did '
      + '(SCIM). `data`: the user with the new role.',
  },
  'user.deleted': {
    data: 'DeletedEventData',
    description: 'A user was deleted (`DELETE /users/{id}`, or an identity provider\'s `DELETE /scim/v2/Users/{id}`). '
      + '`data`: `{ "id": "<user id>" }`.',
  },
  'platform.discovered': {
    data: 'PlatformDiscoveredEventData',
    description: 'The tenant\'s first interaction on an AI platform was stored: sent once per tenant and platform, with '
      + 'that interaction\'s `interaction.created`, whatever the concurrency and the number of replicas. Platforms the '
      + 'tenant used before the service recorded sightings (releases before 0.8) are not announced. `data`: `platform_id`, `first_seen` (the '
      + 'interaction\'s timestamp), `user_id` (its user, or null) and `catalog` (whether the platform is in the catalog; '
      + '`false` for an app the catalog lacks, the case to review first).',
  },
  'audit.entry': {
    data: 'AuditEntryEventData',
    description: 'An audit entry was written: logins (and failed ones), changes to users, API keys, webhooks, policies '
      + 'and settings, alert resolutions, deletions, erasures, exports and retention runs, as they happen, for a SIEM. '
      + 'Sent only to webhooks that subscribe to it by name. `data`: the entry as `GET /audit-log` returns it.',
  },
};

/** Every event type, in the order of `EVENT_TYPES`. Built once: it never changes while the process runs. */
export const EVENT_CATALOG: readonly EventCatalogEntry[] = EVENT_TYPES.map((type) => {
  const { description, data } = DEFINITIONS[type];
  return {
    type,
    description,
    dataName: data,
    schema: envelopeSchema(type, EVENT_DATA_SCHEMAS[data], description),
    sample: sampleEnvelope(type, EXAMPLE_SEED),
  };
});
