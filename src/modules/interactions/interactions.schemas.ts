import { type Static, Type } from 'typebox';
import { MAX_PAGE_SIZE, NextCursor, PageQuery } from '../../kernel/paging/pagination.js';
import { component, IsoDate, Nullable, ref, StringEnum, Uuid } from '../../kernel/schemas.js';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import {
  CONTENT_HASH_PATTERN, DIRECTIONS, INTERACTION_TYPES, LIMITS, POLICY_ACTIONS, SOURCES, STORABLE_TEXT_PATTERN,
} from '../../kernel/vocabulary.js';

const MAX_OFFSET = Number.MAX_SAFE_INTEGER;
export const EXAMPLE_FINGERPRINT = 'fp_3kQ0bW9yZ2VyLWZpbmdlcnByaW50LWV4YW1wbGUtMDE';
export const FINGERPRINT_PATTERN = '^fp_[A-Za-z0-9_-]{43}$';

export const ClassificationSchema = component('Classification', Type.Object({
  type: Type.String({ minLength: 1, maxLength: LIMITS.classificationTypeLength, pattern: STORABLE_TEXT_PATTERN,
    description: 'Open list; known values EMAIL, PHONE, CREDIT_CARD, IBAN, SSN, NIR, SIRET, IP_ADDRESS, API_KEY, PERSON_NAME' }),
  value: Type.String({ maxLength: LIMITS.classificationValueLength, pattern: STORABLE_TEXT_PATTERN }),
  score: Type.Number({ minimum: 0, maximum: 1 }),
  start: Type.Integer({ minimum: 0, maximum: MAX_OFFSET }),
  end: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, description: 'At least `start`' }),
  validated: Type.Optional(Type.Boolean({
    description: 'Set by the service, ignored in input: present when the tenant validates signals (`validate_signals`); '
      + 'true when `value` passed its type\'s check (CREDIT_CARD, IBAN, NIR, SIRET, EMAIL, IP_ADDRESS), false when it '
      + 'failed or the type has no check' })),
  fingerprint: Type.Optional(Type.String({
    description: 'Set by the service, ignored in input: `fp_` and a keyed hash of the type and the normalised value. '
      + 'The same value of the same type has the same fingerprint within the tenant (`GET /interactions?fingerprint=`, '
      + '`POST /signals/lookup`); it cannot be compared across tenants nor turned back into the value' })),
}), {
  description: 'Sensitive data a client detected in the content, by type, with its position and confidence.',
  example: { type: 'EMAIL', value: 'j***@example.com', score: 0.98, start: 12, end: 28 },
});

const INPUT_EXAMPLE = {
  platform_id: 'chatgpt',
  content_hash: EXAMPLE_IDS.contentHash,
  interaction_type: 'prompt' as const,
  content_metadata: { model: 'gpt-4o', length: 512 },
  classifications: [{ type: 'EMAIL', value: 'j***@example.com', score: 0.98, start: 12, end: 28 }],
  risk_score: 0.82,
  direction: 'outbound' as const,
  source: 'browser_extension' as const,
  user_id: EXAMPLE_IDS.user,
};

/** The body of a create, and of each batch item. Server-set and unknown fields are ignored. */
export const InteractionInputSchema = component('InteractionCreate', Type.Object({
  platform_id: Type.String({ maxLength: LIMITS.platformIdInputLength,
    description: 'Trimmed and lowercased, then must match ^[a-z0-9][a-z0-9._-]{0,99}$' }),
  content_hash: Type.String({ pattern: CONTENT_HASH_PATTERN, description: 'SHA-256 hex digest; stored lowercase' }),
  interaction_type: Type.Optional(StringEnum(INTERACTION_TYPES, { default: 'prompt' })),
  content_metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), {
    description: 'Arbitrary JSON object, at most 64 KiB serialised and 32 levels deep' })),
  classifications: Type.Optional(Type.Array(ref(ClassificationSchema), { maxItems: LIMITS.classifications })),
  risk_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0 })),
  direction: Type.Optional(StringEnum(DIRECTIONS, { default: 'outbound' })),
  source: Type.Optional(StringEnum(SOURCES, { default: 'browser_extension' })),
  user_id: Type.Optional(Nullable(Uuid)),
}), {
  description: 'An interaction to record: the SHA-256 of the content and its risk signals, never the content.',
  example: INPUT_EXAMPLE,
});
export type InteractionInput = Static<typeof InteractionInputSchema>;

/** What the batch route validates: each item is checked by the handler, an invalid one is skipped. */
export const BatchBodyValidated = Type.Array(Type.Unknown(), { maxItems: LIMITS.batchItems });
/** What the batch route documents. */
export const BatchBodySchema = component('InteractionBatch', Type.Array(ref(InteractionInputSchema), { maxItems: LIMITS.batchItems }), {
  description: 'Up to 500 interactions, each like a single create; invalid items are skipped, not refused.',
  example: [{ platform_id: 'chatgpt', content_hash: EXAMPLE_IDS.contentHash, risk_score: 0.2 },
    { platform_id: 'claude', content_hash: EXAMPLE_IDS.contentHash, interaction_type: 'completion', direction: 'inbound' }],
});
export const BatchResultSchema = component('InteractionBatchResult', Type.Object({
  received: Type.Integer({ description: 'Items in the request' }),
  stored: Type.Integer({ description: 'Valid items stored; the others were skipped' }),
}), { description: 'How many items of a batch were received and stored.', example: { received: 2, stored: 2 } });

export const PolicyDecisionSchema = component('PolicyDecision', Type.Object({
  policy_id: Uuid,
  policy_name: Type.String(),
  action: StringEnum(POLICY_ACTIONS),
  matched_conditions: Type.Integer({ description: 'How many conditions the policy has (all matched)' }),
  message: Type.Optional(Type.String({ description: "The policy's message for the user, when it has one: in the answer "
    + 'of a create only (a client shows it when coaching or blocking); not stored with the interaction' })),
}), {
  description: 'A policy that matched the interaction when it was recorded, and the action it asks for.',
  example: { policy_id: EXAMPLE_IDS.policy, policy_name: 'No personal data to chatbots', action: 'block', matched_conditions: 2 },
});

export const InteractionSchema = component('Interaction', Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  timestamp: IsoDate,
  platform_id: Type.String(),
  content_hash: Type.String(),
  interaction_type: StringEnum(INTERACTION_TYPES),
  content_metadata: Type.Record(Type.String(), Type.Unknown()),
  classifications: Type.Array(ref(ClassificationSchema)),
  risk_score: Type.Number(),
  direction: StringEnum(DIRECTIONS),
  source: StringEnum(SOURCES),
  user_id: Nullable(Uuid),
  policy_decisions: Type.Array(ref(PolicyDecisionSchema)),
}), {
  description: 'A recorded AI interaction: its hash, risk signals and the policy decisions taken on it.',
  example: {
    id: EXAMPLE_IDS.interaction,
    tenant_id: EXAMPLE_IDS.tenant,
    timestamp: '2026-03-02T09:15:27.401Z',
    ...INPUT_EXAMPLE,
    // A masked value passes no check.
    classifications: INPUT_EXAMPLE.classifications.map((c) => ({ ...c, validated: false, fingerprint: EXAMPLE_FINGERPRINT })),
    policy_decisions: [{ policy_id: EXAMPLE_IDS.policy, policy_name: 'No personal data to chatbots', action: 'block', matched_conditions: 2 }],
  },
});
export type InteractionResponse = Static<typeof InteractionSchema>;

export const INTERACTION_SORTS = ['timestamp', '-timestamp', 'risk_score', '-risk_score', 'platform_id', '-platform_id'] as const;
export type InteractionSort = (typeof INTERACTION_SORTS)[number];

export const ListInteractionsQuery = Type.Object({
  ...PageQuery,
  platform_id: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.platformIdInputLength })),
  risk_score_min: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  risk_score_max: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  classification_type: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.classificationTypeLength,
    pattern: STORABLE_TEXT_PATTERN })),
  source: Type.Optional(StringEnum(SOURCES)),
  start_date: Type.Optional(IsoDate),
  end_date: Type.Optional(IsoDate),
  user_id: Type.Optional(Uuid),
  direction: Type.Optional(StringEnum(DIRECTIONS)),
  fingerprint: Type.Optional(Type.String({ pattern: FINGERPRINT_PATTERN,
    description: 'Interactions holding a detected value with this fingerprint' })),
  sort: Type.Optional(StringEnum(INTERACTION_SORTS, { default: '-timestamp' })),
});
export type ListInteractionsFilters = Static<typeof ListInteractionsQuery>;

export const InteractionListSchema = component('InteractionList', Type.Object({
  data: Type.Array(ref(InteractionSchema)),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer({ description: 'Position of the first item; with a cursor, where the walk was when the cursor was made' }),
  next_cursor: NextCursor,
}), {
  description: 'A page of interactions.',
  example: { data: [InteractionSchema.examples[0]], total: 1, limit: 50, offset: 0, next_cursor: null },
});

export const SearchQuery = Type.Object({
  content_hash: Type.String({ pattern: CONTENT_HASH_PATTERN, description: 'SHA-256 hex digest, any case' }),
  start_date: Type.Optional(IsoDate),
  end_date: Type.Optional(IsoDate),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 100 }),
});
export type SearchFilters = Static<typeof SearchQuery>;

export const InteractionMatchSchema = component('InteractionMatch', Type.Object({
  id: Uuid,
  platform_id: Type.String(),
  content_hash: Type.String(),
  timestamp: IsoDate,
  risk_score: Type.Number(),
  classifications: Type.Array(ref(ClassificationSchema)),
}), {
  description: 'An interaction found by its content hash: where and when the same content was sent.',
  example: {
    id: EXAMPLE_IDS.interaction, platform_id: 'chatgpt', content_hash: EXAMPLE_IDS.contentHash,
    timestamp: '2026-03-02T09:15:27.401Z', risk_score: 0.82,
    classifications: [{ type: 'EMAIL', value: 'j***@example.com', score: 0.98, start: 12, end: 28 }],
  },
});
export const SearchResultSchema = Type.Array(ref(InteractionMatchSchema));

export const InteractionParams = Type.Object({ interaction_id: Type.String({ maxLength: 100 }) });

export const SignalLookupInputSchema = component('SignalLookupRequest', Type.Object({
  type: Type.String({ minLength: 1, maxLength: LIMITS.classificationTypeLength, pattern: STORABLE_TEXT_PATTERN,
    description: 'The classification type, as clients send it (EMAIL, CREDIT_CARD, IBAN...); compared in upper case' }),
  value: Type.String({ minLength: 1, maxLength: LIMITS.classificationValueLength, pattern: STORABLE_TEXT_PATTERN,
    description: 'The value, written any way its type allows (spaces, dashes, case): it is normalised as at ingest' }),
}, { additionalProperties: false }), {
  description: 'A detected value to look for: it is turned into its fingerprint and never stored.',
  example: { type: 'IBAN', value: 'FR76 3000 6000 0112 3456 7890 189' },
});
export type SignalLookupInput = Static<typeof SignalLookupInputSchema>;

export const SignalLookupSchema = component('SignalLookup', Type.Object({
  fingerprint: Type.String({ description: 'The value\'s fingerprint in this tenant: the `fingerprint` list filter takes it' }),
  interactions: Type.Integer({ minimum: 0, description: 'Interactions holding the value' }),
  users: Type.Integer({ minimum: 0, description: 'Distinct user ids among them (interactions without one are not counted)' }),
  first_seen: Nullable(IsoDate),
  last_seen: Nullable(IsoDate),
}), {
  description: 'Where a detected value was seen in the tenant; zero counts and null dates when never.',
  example: {
    fingerprint: EXAMPLE_FINGERPRINT, interactions: 3, users: 2,
    first_seen: '2026-03-02T09:15:27.401Z', last_seen: '2026-03-05T16:40:02.118Z',
  },
});
export type SignalLookup = Static<typeof SignalLookupSchema>;
