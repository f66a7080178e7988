import { type Static, type TSchema, Type } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from './errors.js';

/** Shared pieces of route schemas. */

/**
 * A component schema: registered once under its `$id` (lib/components.ts) and referenced with
 * `ref()`, so validation, serialization and the OpenAPI document all share one definition.
 */
export function component<T extends TSchema>(
  id: string, schema: T, doc: { description: string; example: Static<T> },
): T & { $id: string; examples: [Static<T>] } {
  const named = Object.assign(schema, { $id: id, description: doc.description, examples: [doc.example] as [Static<T>] });
  COMPONENTS_BY_ID.set(id, named);
  return named;
}

const COMPONENTS_BY_ID = new Map<string, TSchema>();

/**
 * The schema with every `ref()` replaced by the component it names (without its `$id` and
 * example): a self-contained JSON Schema, for documents published outside the OpenAPI
 * document (the event catalog).
 */
export function inlineRefs<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(inlineRefs) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const { $ref } = schema as { $ref?: unknown };
  if (typeof $ref === 'string' && COMPONENTS_BY_ID.has($ref)) {
    const { $id: _id, examples: _examples, ...target } = COMPONENTS_BY_ID.get($ref) as Record<string, unknown>;
    return withModifiersOf(schema, inlineRefs(target)) as T;
  }
  const copy = withModifiersOf(schema, { ...schema } as Record<string, unknown>);
  for (const key of Object.keys(copy)) copy[key] = inlineRefs(copy[key]);
  return copy as T;
}

/** `target` with the non-enumerable keys TypeBox keeps on `source` (`~optional` marks an optional property). */
function withModifiersOf<T extends object>(source: object, target: T): T {
  for (const key of Object.getOwnPropertyNames(source)) {
    const descriptor = Object.getOwnPropertyDescriptor(source, key)!;
    if (!descriptor.enumerable) Object.defineProperty(target, key, descriptor);
  }
  return target;
}

/** A `$ref` to a component schema, typed as that schema. Never embed a component itself. */
export function ref<T extends TSchema>(schema: T): ReturnType<typeof Type.Unsafe<Static<T>>> {
  const id = (schema as { $id?: string }).$id;
  if (!id) throw new Error('ref() needs a schema registered with component()');
  return Type.Unsafe<Static<T>>({ $ref: id });
}

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorBody = component('Error', Type.Object({
  error: Type.String({ description: 'What went wrong, for a human' }),
  code: Type.Unsafe<ErrorCode>({ type: 'string', enum: ERROR_CODES,
    description: 'Machine-readable; the closed list of codes, each with one HTTP status' }),
  details: Type.Optional(Type.Array(Type.Object({
    path: Type.String({ description: 'Where: `body.…`, `query.…`, `params.…` or `headers.…`' }),
    message: Type.String(),
  }), { description: 'Per-field problems of a validation error' })),
}), {
  description: 'The body of every error response.',
  example: {
    error: 'Invalid request: body.risk_score must be <= 1',
    code: 'validation_error',
    details: [{ path: 'body.risk_score', message: 'must be <= 1' }],
  },
});

export const Uuid = Type.String({ format: 'uuid' });
export const IsoDate = Type.String({ format: 'date-time' });
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const ErrorRef = ref(ErrorBody);

/**
 * Error responses a route documents besides the ones every route of its kind has (those are added
 * to the document by plugins/openapi-document.ts): usually 409 and 410.
 */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorRef> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorRef]));
}

export const NoContent = Type.Null({ description: 'No content' });

/** A string restricted to `values`: one `enum` keyword, so errors read "must be one of …". */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
