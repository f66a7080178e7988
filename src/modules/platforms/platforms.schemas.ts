import { type Static, Type } from 'typebox';
import { component, IsoDate, Nullable, ref, StringEnum } from '../../kernel/schemas.js';
import {
  LIMITS, PLATFORM_CATEGORIES, PLATFORM_STATUSES, RISK_TIERS, STORABLE_TEXT_PATTERN,
} from '../../kernel/vocabulary.js';

export const PlatformSchema = component('Platform', Type.Object({
  id: Type.String({ description: 'The platform_id interactions carry (lowercase)' }),
  name: Nullable(Type.String()),
  vendor: Nullable(Type.String()),
  category: Nullable(StringEnum(PLATFORM_CATEGORIES)),
  domains: Type.Array(Type.String(), { description: 'Host names the platform is used on; each covers its subdomains' }),
  risk_tier: Nullable(StringEnum(RISK_TIERS)),
  trains_on_inputs: Nullable(Type.Boolean({ description: 'Whether the vendor trains its models on what users send by '
    + 'default; null when unknown' })),
  data_regions: Type.Array(Type.String(), { description: 'Where the vendor keeps the data (ISO 3166 codes or `EU`); empty when unknown' }),
  sources: Type.Array(Type.String(), { description: "The vendor's public pages the facts come from" }),
  status: StringEnum(PLATFORM_STATUSES, { description: "The tenant's decision; `unsanctioned` until one is made" }),
  note: Type.String({ description: 'Why, as the admin who set the status wrote it; empty when none' }),
  overridden: Type.Array(StringEnum(['name', 'category', 'risk_tier'] as const), {
    description: "The fields that show the tenant's own value instead of the catalog's" }),
  catalog: Type.Boolean({ description: 'False for a platform the tenant has seen (or set a status on) that the catalog lacks: '
    + 'its facts are then null or empty' }),
  updated_at: Nullable(IsoDate),
}), {
  description: "An AI platform: the catalog's facts, with the tenant's status and overrides merged.",
  example: {
    id: 'openai', name: 'ChatGPT', vendor: 'OpenAI', category: 'assistant', domains: ['chatgpt.com', 'chat.openai.com'],
    risk_tier: 'high', trains_on_inputs: true, data_regions: [],
    sources: ['https://openai.com/policies/privacy-policy/'],
    status: 'sanctioned', note: 'Enterprise workspace only', overridden: [], catalog: true,
    updated_at: '2026-03-01T10:00:00.000Z',
  },
});
export type PlatformResponse = Static<typeof PlatformSchema>;

export const PlatformListSchema = component('PlatformList', Type.Object({
  platforms: Type.Array(ref(PlatformSchema)),
  total: Type.Integer({ minimum: 0 }),
}), {
  description: "The catalog and the platforms of the tenant that it lacks, each with the tenant's status, by id.",
  example: { platforms: [PlatformSchema.examples[0]], total: 1 },
});

const Override = <T extends Parameters<typeof Nullable>[0]>(schema: T, description: string) =>
  Type.Optional(Type.Union([schema, Type.Null()], { description }));

export const SetPlatformStatusBody = component('PlatformStatusUpdate', Type.Object({
  status: StringEnum(PLATFORM_STATUSES),
  note: Type.Optional(Type.String({ maxLength: LIMITS.platformNoteLength, pattern: STORABLE_TEXT_PATTERN,
    description: 'Why; replaces the previous note (left out: kept)' })),
  // Not blank, and storable (no NUL, no lone surrogate).
  name: Override(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000\\p{Cs}]*[^\\s\\u0000\\p{Cs}][^\\u0000\\p{Cs}]*$' }),
    "The tenant's own name of the platform; null: the catalog's (left out: kept)"),
  category: Override(StringEnum(PLATFORM_CATEGORIES), "The tenant's own category; null: the catalog's (left out: kept)"),
  risk_tier: Override(StringEnum(RISK_TIERS), "The tenant's own risk tier; null: the catalog's (left out: kept)"),
}), {
  description: "The tenant's status of a platform, its note, and the tenant's own view of the platform where it differs "
    + 'from the catalog.',
  example: { status: 'blocked', note: 'Stores prompts in a region we cannot accept', risk_tier: 'high' },
});
export type SetPlatformStatusInput = Static<typeof SetPlatformStatusBody>;

export const PlatformParams = Type.Object({ platform_id: Type.String({ minLength: 1, maxLength: LIMITS.platformIdInputLength }) });
