import { type Static, Type } from 'typebox';
import { MAX_PAGE_SIZE, NextCursor, PageQuery } from '../../lib/pagination.js';
import { IsoDate, Nullable, StringEnum, Uuid } from '../../lib/schemas.js';

export const INTERACTION_TYPES = ['prompt', 'completion', 'tool_call', 'embedding'] as const;
export const DIRECTIONS = ['outbound', 'inbound'] as const;
export const SOURCES = ['browser_extension', 'proxy', 'endpoint_agent', 'api'] as const;
export const POLICY_ACTIONS = ['block', 'coach', 'log'] as const;

/** Size caps of one interaction (docs/interactions.md, "Limits"). */
export const LIMITS = {
  classifications: 1000,
  classificationTypeLength: 100,
  classificationValueLength: 1000,
  contentMetadataBytes: 64 * 1024,
  contentMetadataDepth: 32,
  platformIdInputLength: 200,
  batchItems: 500,
} as const;

export const PLATFORM_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,99}$/;
export const CONTENT_HASH_PATTERN = '^[0-9a-fA-F]{64}$';
/** Strings that PostgreSQL can store in text and jsonb: no NUL character, no lone surrogate. */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\p{Cs}]*$';

const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

export const ClassificationSchema = Type.Object({
  type: Type.String({ minLength: 1, maxLength: LIMITS.classificationTypeLength, pattern: STORABLE_TEXT_PATTERN,
    description: 'Open list; known values EMAIL, PHONE, CREDIT_CARD, IBAN, SSN, NIR, SIRET, IP_ADDRESS, API_KEY, PERSON_NAME' }),
  value: Type.String({ maxLength: LIMITS.classificationValueLength, pattern: STORABLE_TEXT_PATTERN }),
  score: Type.Number({ minimum: 0, maximum: 1 }),
  start: Type.Integer({ minimum: 0, maximum: MAX_OFFSET }),
  end: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, description: 'At least `start`' }),
});

/** The body of a create, and of each batch item. Server-set and unknown fields are ignored. */
export const InteractionInputSchema = Type.Object({
  platform_id: Type.String({ maxLength: LIMITS.platformIdInputLength,
    description: 'Trimmed and lowercased, then must match ^[a-z0-9][a-z0-9._-]{0,99}$' }),
  content_hash: Type.String({ pattern: CONTENT_HASH_PATTERN, description: 'SHA-256 hex digest; stored lowercase' }),
  interaction_type: Type.Optional(StringEnum(INTERACTION_TYPES, { default: 'prompt' })),
  content_metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), {
    description: 'Arbitrary JSON object, at most 64 KiB serialised and 32 levels deep' })),
  classifications: Type.Optional(Type.Array(ClassificationSchema, { maxItems: LIMITS.classifications })),
  risk_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0 })),
  direction: Type.Optional(StringEnum(DIRECTIONS, { default: 'outbound' })),
  source: Type.Optional(StringEnum(SOURCES, { default: 'browser_extension' })),
  user_id: Type.Optional(Nullable(Uuid)),
});
export type InteractionInput = Static<typeof InteractionInputSchema>;

export const BatchBodySchema = Type.Array(Type.Unknown(), {
  maxItems: LIMITS.batchItems,
  description: 'Up to 500 interactions (same schema as a single create); invalid items are skipped',
});
export const BatchResultSchema = Type.Object({ received: Type.Integer(), stored: Type.Integer() });

export const PolicyDecisionSchema = Type.Object({
  policy_id: Uuid,
  policy_name: Type.String(),
  action: StringEnum(POLICY_ACTIONS),
  matched_conditions: Type.Integer({ description: 'How many conditions the policy has (all matched)' }),
});

export const InteractionSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  timestamp: IsoDate,
  platform_id: Type.String(),
  content_hash: Type.String(),
  interaction_type: StringEnum(INTERACTION_TYPES),
  content_metadata: Type.Record(Type.String(), Type.Unknown()),
  classifications: Type.Array(ClassificationSchema),
  risk_score: Type.Number(),
  direction: StringEnum(DIRECTIONS),
  source: StringEnum(SOURCES),
  user_id: Nullable(Uuid),
  policy_decisions: Type.Array(PolicyDecisionSchema),
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
  sort: Type.Optional(StringEnum(INTERACTION_SORTS, { default: '-timestamp' })),
});
export type ListInteractionsFilters = Static<typeof ListInteractionsQuery>;

export const InteractionListSchema = Type.Object({
  data: Type.Array(InteractionSchema),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer({ description: 'Position of the first item; with a cursor, where the walk was when the cursor was made' }),
  next_cursor: NextCursor,
});

export const SearchQuery = Type.Object({
  content_hash: Type.String({ pattern: CONTENT_HASH_PATTERN, description: 'SHA-256 hex digest, any case' }),
  start_date: Type.Optional(IsoDate),
  end_date: Type.Optional(IsoDate),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 100 }),
});
export type SearchFilters = Static<typeof SearchQuery>;

export const SearchResultSchema = Type.Array(Type.Object({
  id: Uuid,
  platform_id: Type.String(),
  content_hash: Type.String(),
  timestamp: IsoDate,
  risk_score: Type.Number(),
  classifications: Type.Array(ClassificationSchema),
}));

export const InteractionParams = Type.Object({ interaction_id: Type.String({ maxLength: 100 }) });
