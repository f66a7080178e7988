import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface CatalogItem {
  type: string;
  description: string;
  schema: Record<string, unknown>;
  sample: { id: string; timestamp: string; event_type: string; tenant_id: string; data: Record<string, unknown> };
}

/**
 * The schema with every object closed (`additionalProperties: false` where it says nothing):
 * published schemas accept new fields, but what the service sends must be exactly what they declare,
 * so a field added to (or renamed in) an event without its schema fails validation.
 */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([key, value]) =>
    [key, key === 'examples' || key === 'const' || key === 'enum' ? value : closed(value)]));
  if (copy.type === 'object' && copy.properties && copy.additionalProperties === undefined && copy.patternProperties === undefined) {
    copy.additionalProperties = false;
  }
  return copy;
}

/** Validators of a catalog's schemas by event type: as published, and closed. JSON Schema 2020-12, strict. */
export function catalogValidators(catalog: CatalogItem[]) {
  const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
  const open = new Map<string, ValidateFunction>();
  const strict = new Map<string, ValidateFunction>();
  for (const item of catalog) {
    open.set(item.type, ajv.compile(item.schema));
    strict.set(item.type, ajv.compile(closed(item.schema) as object));
  }
  /** The validation errors of `body` against the schema of `type` (closed unless said otherwise); [] when valid. */
  return (type: string, body: unknown, mode: 'closed' | 'open' = 'closed') => {
    const validate = (mode === 'closed' ? strict : open).get(type);
    if (!validate) return [`no schema for ${type}`];
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${type}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  };
}

/** The structure of a JSON value: its keys and the JSON type of each leaf (array items merged), values dropped. */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value === null) return 'null';
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shapeOf(v)]));
  }
  return typeof value;
}
