import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ErrorDetail } from '../../kernel/errors.js';
import type { Classification, Direction, InteractionType, Source } from '../../kernel/tables/interactions.js';
import { LIMITS, PLATFORM_ID_PATTERN } from '../../kernel/vocabulary.js';
import { ClassificationSchema, type InteractionInput, InteractionInputSchema } from './interactions.schemas.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// Bodies are never coerced ("0.5" is not a risk score) and never mutated: defaults are applied below.
const ajv = addFormats(new Ajv({ coerceTypes: false, useDefaults: false, allErrors: false, strict: false }))
  .addSchema(ClassificationSchema);
const checkSchema = ajv.compile<InteractionInput>(InteractionInputSchema);

/** An interaction input after validation and normalisation: every field present, ready to store. */
export interface ValidInteraction {
  platform_id: string;
  content_hash: string;
  interaction_type: InteractionType;
  content_metadata: Record<string, unknown>;
  classifications: Classification[];
  risk_score: number;
  direction: Direction;
  source: Source;
  user_id: string | null;
}

export type ParseResult = { ok: true; value: ValidInteraction } | { ok: false; details: ErrorDetail[] };

/**
 * The one validator of interaction input, for single creates (errors become a 400) and batch
 * items (invalid ones are skipped): the schema, then the rules a schema cannot say.
 */
export function parseInteraction(raw: unknown): ParseResult {
  if (!checkSchema(raw)) return { ok: false, details: (checkSchema.errors ?? []).map(toDetail) };

  const platformId = raw.platform_id.trim().toLowerCase();
  if (!PLATFORM_ID_PATTERN.test(platformId)) {
    return invalid('platform_id', 'must be 1-100 characters of a-z, 0-9, ".", "_", "-" starting with a letter or digit');
  }
  const classifications = (raw.classifications ?? []).map(({ type, value, score, start, end }) => ({
    type, value, score, start, end,
  }));
  const reversed = classifications.findIndex((c) => c.start > c.end);
  if (reversed >= 0) return invalid(`classifications.${reversed}.end`, 'must be greater than or equal to start');

  const metadata = raw.content_metadata ?? {};
  const metadataProblem = checkMetadata(metadata);
  if (metadataProblem) return invalid('content_metadata', metadataProblem);

  return {
    ok: true,
    value: {
      platform_id: platformId,
      content_hash: raw.content_hash.toLowerCase(),
      interaction_type: raw.interaction_type ?? 'prompt',
      content_metadata: metadata,
      classifications,
      risk_score: raw.risk_score ?? 0,
      direction: raw.direction ?? 'outbound',
      source: raw.source ?? 'browser_extension',
      user_id: raw.user_id?.toLowerCase() ?? null,
    },
  };
}

const STORABLE = /^[^\u0000\p{Cs}]*$/u;

/**
 * Caps the metadata's depth and size, and refuses strings PostgreSQL's jsonb cannot hold.
 * Walks iteratively so a deeply nested body cannot overflow the stack.
 */
function checkMetadata(metadata: Record<string, unknown>): string | undefined {
  const pending: Array<{ value: unknown; depth: number }> = [{ value: metadata, depth: 1 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (typeof value === 'string') {
      if (!STORABLE.test(value)) return 'must not contain NUL characters or unpaired surrogates';
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > LIMITS.contentMetadataDepth) return `must not be nested deeper than ${LIMITS.contentMetadataDepth} levels`;
    const entries = Array.isArray(value) ? value.map((item) => ['', item] as const) : Object.entries(value);
    for (const [key, item] of entries) {
      if (!STORABLE.test(key)) return 'must not contain NUL characters or unpaired surrogates';
      pending.push({ value: item, depth: depth + 1 });
    }
  }
  if (Buffer.byteLength(JSON.stringify(metadata)) > LIMITS.contentMetadataBytes) {
    return `must be at most ${LIMITS.contentMetadataBytes} bytes of JSON`;
  }
  return undefined;
}

function invalid(field: string, message: string): ParseResult {
  return { ok: false, details: [{ path: `body.${field}`, message }] };
}

function toDetail(error: ErrorObject): ErrorDetail {
  const segments = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  const path = ['body', ...segments].join('.');
  if (error.keyword === 'required') return { path, message: 'is required' };
  if (error.keyword === 'enum') return { path, message: `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}` };
  if (error.keyword === 'pattern' && segments.at(-1) === 'content_hash') return { path, message: 'must be 64 hexadecimal characters' };
  return { path, message: error.message ?? 'is invalid' };
}
