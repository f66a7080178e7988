import fc from 'fast-check';

/**
 * JSON Schema (the OpenAPI 3.1 document's dialect) -> fast-check arbitraries: values the schema
 * accepts, values at and just past its bounds, and hostile ones (wrong types, huge and odd
 * strings, malformed formats, missing and extra fields). Only the keywords the document uses are
 * read; anything else falls back to any JSON value.
 */

export type Schema = Record<string, any>;
export type Kind = 'valid' | 'boundary' | 'hostile';

export interface SchemaContext {
  /** Resolves a `$ref` of the document (`#/components/schemas/X`). */
  resolve(ref: string): Schema;
  /**
   * A value for a named field or parameter, when its name says more than its schema (an id of
   * the tenants' data, a receiver URL on loopback): the values a client would really send.
   */
  hint(name: string, schema: Schema): fc.Arbitrary<unknown> | undefined;
}

/** Characters that break naive text handling: NUL, lone surrogates, BOM, bidi override, combining marks, astral. */
const ODD_CHARS = ['\u0000', '\uD800', '\uDFFF', '\uFEFF', '\u202E', 'e\u0301', '\u{1F600}', '\u2028', '\r\n', '\t', '%', '\\', '"', '\'', '<', '&', '/', '..', ' '];

/** A string with odd characters mixed into arbitrary text (any code point, surrogates included). */
export const oddString = (maxLength = 40): fc.Arbitrary<string> =>
  fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom(...ODD_CHARS)), { maxLength })
    .map((parts) => parts.join(''));

/** Strings far over any limit the document sets (and under the body limit). */
export const hugeString = (): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom(1_001, 4_097, 65_537, 300_000), fc.constantFrom('x', 'é', '\u{1F600}', '\u0000'))
    .map(([n, c]) => c.repeat(n));

const mutateUuid = (uuid: string) => fc.constantFrom(
  uuid.slice(0, -1), `${uuid}0`, uuid.replace(/-/g, ''), `{${uuid}}`, uuid.toUpperCase(), uuid.replace(/[0-9a-f]$/, 'g'),
  '00000000-0000-0000-0000-000000000000', uuid.replace(/-/, '\u0000'),
);

const malformedFormats: Record<string, () => fc.Arbitrary<string>> = {
  uuid: () => fc.uuid().chain(mutateUuid),
  'date-time': () => fc.oneof(
    fc.constantFrom('2024-02-30T00:00:00Z', '2016-12-31T23:59:60Z', '2024-13-01T00:00:00Z', '2024-01-01', '2024-01-01T25:00:00Z',
      '0000-00-00T00:00:00Z', '+275760-09-13T00:00:00.001Z', '1969-12-31T23:59:59.999999999Z', 'now', '2024-01-01T00:00:00+25:00'),
    fc.date({ noInvalidDate: true }).map((d) => String(d.getTime())),
  ),
  email: () => fc.constantFrom('no-at-sign', '@example.com', 'a@', 'a@b@c', 'a b@example.com', `${'a'.repeat(250)}@example.com`, 'a@[127.0.0.1'),
};

/** Values of every JSON type, for "wrong type" mutations. */
const anyJson = (): fc.Arbitrary<unknown> => fc.oneof(
  fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true }), fc.string(),
  fc.constant([]), fc.constant({}), fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

export class SchemaValues {
  constructor(private readonly ctx: SchemaContext) {}

  deref(schema: Schema): Schema {
    let current = schema;
    for (let i = 0; current && typeof current.$ref === 'string' && i < 10; i += 1) current = this.ctx.resolve(current.$ref);
    return current ?? {};
  }

  /** A value of the given kind; `name` is the field or parameter's name, for hints. */
  of(kind: Kind, schema: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
    if (kind === 'valid') return this.valid(schema, name, depth);
    if (kind === 'boundary') return this.boundary(schema, name, depth);
    return this.hostile(schema, name, depth);
  }

  /** Valid, boundary or hostile, in the given proportions. */
  mixed(schema: Schema, name = '', weights: Record<Kind, number> = { valid: 4, boundary: 1, hostile: 2 }, depth = 0): fc.Arbitrary<unknown> {
    return fc.oneof(
      { weight: weights.valid, arbitrary: this.valid(schema, name, depth) },
      { weight: weights.boundary, arbitrary: this.boundary(schema, name, depth) },
      { weight: weights.hostile, arbitrary: this.hostile(schema, name, depth) },
    );
  }

  valid(raw: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
    const schema = this.deref(raw);
    const hinted = this.ctx.hint(name, schema);
    if (hinted) return hinted;
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((s: Schema) => this.valid(s, name, depth)));
    const types = typesOf(schema);
    if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
    return fc.oneof(...types.map((type) => this.validOfType(type, schema, name, depth)));
  }

  private validOfType(type: string, schema: Schema, name: string, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null': return fc.constant(null);
      case 'boolean': return fc.boolean();
      case 'integer': return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
      case 'number': return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
      case 'string': return this.validString(schema);
      case 'array': {
        const maxLength = Math.min(schema.maxItems ?? 5, 5);
        const items = fc.array(this.valid(schema.items ?? {}, name, depth + 1), { minLength: Math.min(schema.minItems ?? 0, maxLength), maxLength });
        return schema.uniqueItems ? items.map((xs) => [...new Map(xs.map((x) => [JSON.stringify(x), x])).values()]) : items;
      }
      case 'object': return this.validObject(schema, depth);
      default: return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private validString(schema: Schema): fc.Arbitrary<string> {
    const minLength = schema.minLength ?? 0;
    const maxLength = Math.min(schema.maxLength ?? 60, 60);
    if (schema.format === 'uuid') return fc.uuid();
    if (schema.format === 'date-time') {
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    }
    if (schema.format === 'email') return fc.emailAddress().filter((e) => e.length <= (schema.maxLength ?? 254));
    if (typeof schema.pattern === 'string') {
      const matching = patternArbitrary(schema.pattern);
      if (matching) return matching.filter((s) => s.length >= minLength && (schema.maxLength === undefined || s.length <= schema.maxLength));
    }
    return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) }).filter((s) => !schema.pattern || safeTest(schema.pattern, s));
  }

  private validObject(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const properties: Record<string, Schema> = schema.properties ?? {};
    const required = new Set<string>(schema.required ?? []);
    if (Object.keys(properties).length === 0) {
      if (depth > 3 || schema.additionalProperties === false) return fc.constant({});
      const values = typeof schema.additionalProperties === 'object' ? this.valid(schema.additionalProperties, '', depth + 1) : fc.jsonValue({ maxDepth: 2 });
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => /^[A-Za-z][\w-]*$/.test(k)), values, { maxKeys: Math.min(schema.maxProperties ?? 4, 4) });
    }
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [key, value] of Object.entries(properties)) record[key] = this.valid(value, key, depth + 1);
    return fc.record(record, { requiredKeys: [...required].filter((k) => k in properties) }) as fc.Arbitrary<Record<string, unknown>>;
  }

  /** Values on each side of the schema's bounds: min and max, one under and one over. */
  boundary(raw: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
    const schema = this.deref(raw);
    const types = typesOf(schema);
    const options: fc.Arbitrary<unknown>[] = [];
    if (types.includes('string')) {
      const { minLength = 0, maxLength } = schema;
      options.push(fc.constant('a'.repeat(minLength)), fc.constant(''));
      if (minLength > 0) options.push(fc.constant('a'.repeat(minLength - 1)));
      if (maxLength !== undefined) options.push(fc.constant('a'.repeat(maxLength)), fc.constant('a'.repeat(maxLength + 1)), fc.constant('\u{1F600}'.repeat(maxLength)));
    }
    if (types.includes('integer') || types.includes('number')) {
      const { minimum, maximum } = schema;
      const step = types.includes('integer') ? 1 : 1e-9;
      if (minimum !== undefined) options.push(fc.constantFrom(minimum, minimum - step, -minimum));
      if (maximum !== undefined) options.push(fc.constantFrom(maximum, maximum + step));
      options.push(fc.constantFrom(0, -0, -1, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, 5e-324));
      if (types.includes('integer')) options.push(fc.constantFrom(0.5, (minimum ?? 0) + 0.5));
    }
    if (types.includes('array')) {
      const { minItems = 0, maxItems } = schema;
      const item = this.valid(schema.items ?? {}, name, depth + 1);
      options.push(fc.constant([]));
      if (minItems > 0) options.push(fc.array(item, { minLength: minItems - 1, maxLength: minItems - 1 }));
      if (maxItems !== undefined) options.push(fc.array(item, { minLength: maxItems + 1, maxLength: maxItems + 1, size: 'small' }).map((xs) => xs));
    }
    if (types.includes('object')) {
      options.push(fc.constant({}));
      if (schema.maxProperties !== undefined) {
        options.push(fc.constant(Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`X-K${i}`, 'v']))));
      }
    }
    if (Array.isArray(schema.enum)) options.push(fc.constantFrom(...schema.enum.map((v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v))));
    return options.length ? fc.oneof(...options) : this.valid(schema, name, depth);
  }

  /** Values a careless or hostile client sends instead. */
  hostile(raw: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
    const schema = this.deref(raw);
    const types = typesOf(schema);
    const options: fc.Arbitrary<unknown>[] = [anyJson(), fc.constant(null), oddString(), hugeString()];
    const format = malformedFormats[schema.format as string];
    if (format) options.push(format());
    if (Array.isArray(schema.enum)) {
      options.push(fc.constantFrom(...schema.enum).chain((v: unknown) => fc.constantFrom(` ${String(v)}`, `${String(v)}\u0000`, String(v).toUpperCase(), [v], { value: v })));
    }
    if (types.includes('number') || types.includes('integer')) {
      options.push(fc.constantFrom('1', '0.5', 'NaN', 'Infinity', '1e999', '', true), fc.double());
    }
    if (types.includes('object') && depth < 3) {
      options.push(this.mutatedObject(schema, depth), fc.array(this.valid(schema, name, depth + 1), { maxLength: 2 }));
    }
    if (types.includes('array') && depth < 3) {
      options.push(
        fc.array(this.hostile(schema.items ?? {}, name, depth + 1), { minLength: 1, maxLength: 3 }),
        this.valid(schema.items ?? {}, name, depth + 1),
      );
    }
    return fc.oneof(...options);
  }

  /** A valid object with one thing wrong: a required field missing, a field hostile, or extra fields. */
  private mutatedObject(schema: Schema, depth: number): fc.Arbitrary<unknown> {
    const properties: Record<string, Schema> = schema.properties ?? {};
    const keys = Object.keys(properties);
    const base = this.validObject(schema, depth + 1);
    const extraKey = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('__proto__', 'constructor', 'tenant_id', 'id', 'created_at', 'role', ''));
    const mutations: fc.Arbitrary<unknown>[] = [
      fc.tuple(base, fc.dictionary(extraKey, anyJson(), { minKeys: 1, maxKeys: 3 })).map(([object, extra]) => ({ ...object, ...extra })),
    ];
    if ((schema.required ?? []).length) {
      mutations.push(fc.tuple(base, fc.constantFrom(...(schema.required as string[]))).map(([object, key]) => {
        const copy = { ...object };
        delete copy[key];
        return copy;
      }));
    }
    if (keys.length) {
      mutations.push(fc.constantFrom(...keys).chain((key) =>
        fc.tuple(base, this.hostile(properties[key]!, key, depth + 1)).map(([object, value]) => ({ ...object, [key]: value }))));
    }
    return fc.oneof(...mutations);
  }
}

const patternCache = new Map<string, fc.Arbitrary<string> | undefined>();

/** fast-check's stringMatching for the patterns it understands (not `\p{…}`), else undefined. */
function patternArbitrary(pattern: string): fc.Arbitrary<string> | undefined {
  if (!patternCache.has(pattern)) {
    let arbitrary: fc.Arbitrary<string> | undefined;
    try {
      arbitrary = /\\p\{/.test(pattern) ? undefined : fc.stringMatching(new RegExp(pattern, 'u'), { size: 'small' });
    } catch {
      arbitrary = undefined;
    }
    patternCache.set(pattern, arbitrary);
  }
  return patternCache.get(pattern);
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true;
  }
}
