import fc from 'fast-check';
import { oddString, SchemaValues, type Schema, type SchemaContext } from './schema-values.js';

/** One operation of the OpenAPI document, as the fuzzer reads it. */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  responses: Record<string, Schema>;
}

export interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required: boolean;
  schema: Schema;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Schema>>;
  components: Record<string, Record<string, Schema>>;
}

/** Who sends a request: a named credential of the first tenant, none, or a garbage Authorization header. */
export type Caller =
  | { kind: 'none' }
  | { kind: 'admin' | 'viewer' | 'key-write' | 'key-read' | 'key-both' }
  | { kind: 'garbage'; authorization: string };

export interface FuzzRequest {
  operationId: string;
  method: string;
  url: string;
  caller: Caller;
  headers: Record<string, string>;
  payload?: string | undefined;
}

/** Ids and values of each tenant by field or parameter name (`user_id`, `email`…): `own` the caller's tenant, `other` another. */
export type Pools = Record<string, { own: string[]; other: string[] }>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** Above this, Node's HTTP parser (16 KiB of request line and headers) refuses before the service sees it. */
const MAX_URL = 16_000;
/** Over BODY_LIMIT_BYTES' default (5 MiB). */
const OVERSIZED_BODY = 5_300_000;

/** The operations of the document, with their `$ref` parameters resolved. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const parameters = ((op.parameters ?? []) as Schema[]).map((p) => (p.$ref ? resolve(doc, p.$ref) : p)) as Parameter[];
      operations.push({
        operationId: op.operationId, method: method.toUpperCase(), path, parameters,
        body: op.requestBody?.content?.['application/json']?.schema,
        responses: op.responses,
      });
    }
  }
  return operations;
}

export function resolve(doc: OpenApiDocument, ref: string): Schema {
  const parts = ref.replace(/^#\//, '').split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: any = doc;
  for (const part of parts) node = node?.[part];
  if (!node) throw new Error(`unresolved ${ref}`);
  return node;
}

/**
 * Percent-encodes text for a URL. Text holding lone surrogates (which encodeURIComponent refuses)
 * is encoded as their three UTF-8-like bytes, which no decoder accepts: what a broken client sends.
 */
export function encodePart(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    let out = '';
    for (const char of text) {
      const code = char.codePointAt(0)!;
      if (code >= 0xd800 && code <= 0xdfff) {
        out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      } else {
        out += encodeURIComponent(char);
      }
    }
    return out;
  }
}

/** Header values a client can actually send (latin-1 without control characters but tab). */
const sendableHeader = (value: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value) && value.length < 8_000;

/** Builds requests for every operation from the document's schemas and the tenants' pools. */
export class RequestBuilder {
  private readonly values: SchemaValues;
  /** Static path segments (`me`, `batch`…): a path parameter never takes one, or another route would answer. */
  private readonly staticSegments: Set<string>;

  constructor(doc: OpenApiDocument, private readonly pools: Pools) {
    const ctx: SchemaContext = { resolve: (ref) => resolve(doc, ref), hint: (name, schema) => this.hint(name, schema) };
    this.values = new SchemaValues(ctx);
    this.staticSegments = new Set(Object.keys(doc.paths).flatMap((p) => p.split('/')).filter((s) => s && !s.startsWith('{')));
  }

  /** Known values for a name: the first tenant's, the other tenant's, or fresh ones of the right shape. */
  private hint(name: string, schema: Schema): fc.Arbitrary<unknown> | undefined {
    if (name === 'url') return fc.webSegment().map((segment) => `https://127.0.0.1:9/${segment}`);
    if (name === 'platform_id' || name === 'platform_ids') return fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/);
    const pool = this.pools[name];
    if (!pool) return undefined;
    const known = [...pool.own, ...pool.other];
    if (known.length === 0) return undefined;
    const fresh = schema.format === 'uuid' || name.endsWith('_id') ? fc.uuid() : this.values.valid({ ...schema }, '');
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fresh });
  }

  /** Any request for any operation. */
  request(operations: Operation[]): fc.Arbitrary<FuzzRequest> {
    return fc.oneof(...operations.map((op) => this.requestFor(op)));
  }

  /**
   * A third of the requests are valid in every part but the caller (known ids, valid parameters
   * and body), so that the handlers' own paths run often; the others mix valid, boundary and
   * hostile values part by part.
   */
  requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
    return fc.oneof(this.build(op, true), this.build(op, false), this.build(op, false));
  }

  private build(op: Operation, valid: boolean): fc.Arbitrary<FuzzRequest> {
    const value = (schema: Schema, name: string) => (valid ? this.values.valid(schema, name) : this.values.mixed(schema, name));
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const headerParams = op.parameters.filter((p) => p.in === 'header');
    const path = fc.tuple(...pathParams.map((p) => (valid ? this.knownId(p) : this.pathValue(p)))).map((values) => {
      let url = op.path;
      pathParams.forEach((p, i) => { url = url.replace(`{${p.name}}`, encodePart(values[i]!)); });
      return url;
    });
    const query = fc.tuple(
      fc.tuple(...queryParams.map((p) => fc.option(value(p.schema, p.name), { freq: 2, nil: undefined }))),
      valid ? fc.constant(undefined) : fc.option(fc.tuple(oddString(10), fc.string({ maxLength: 10 })), { freq: 8, nil: undefined }),
    ).map(([values, extra]) => {
      const pairs: string[] = [];
      queryParams.forEach((p, i) => {
        const value = values[i];
        if (value === undefined) return;
        for (const item of Array.isArray(value) ? value : [value]) {
          pairs.push(`${encodePart(p.name)}=${encodePart(typeof item === 'object' ? JSON.stringify(item) : String(item))}`);
        }
      });
      if (extra) pairs.push(`${encodePart(extra[0])}=${encodePart(extra[1])}`);
      return pairs.length ? `?${pairs.join('&')}` : '';
    });
    const headers = fc.tuple(...headerParams.map((p) => fc.option(value(p.schema, p.name), { freq: 2, nil: undefined })))
      .map((values) => Object.fromEntries(headerParams.flatMap((p, i) => {
        const value = values[i];
        if (value === undefined) return [];
        const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
        return sendableHeader(text) ? [[p.name.toLowerCase(), text]] : [];
      })));
    const body = valid
      ? (op.body ? this.values.valid(op.body).map((v) => ({ payload: JSON.stringify(v), headers: { 'content-type': 'application/json' } })) : fc.constant({ headers: {} }))
      : this.body(op);
    return fc.record({ path, query, headers, body: body as fc.Arbitrary<{ payload?: string; headers: Record<string, string> }>, caller: this.caller() })
      .filter(({ path: p, query: q }) => p.length + q.length < MAX_URL)
      .map(({ path: p, query: q, headers: h, body, caller }) => ({
        operationId: op.operationId, method: op.method, url: p + q, caller,
        headers: { ...h, ...body.headers }, payload: body.payload,
      }));
  }

  /** An id of either tenant, or a fresh one. */
  private knownId(p: Parameter): fc.Arbitrary<string> {
    const pool = this.pools[p.name] ?? { own: [], other: [] };
    const known = [...pool.own, ...pool.own, ...pool.other];
    return known.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fc.uuid() }) : fc.uuid();
  }

  private pathValue(p: Parameter): fc.Arbitrary<string> {
    const pool = this.pools[p.name] ?? { own: [], other: [] };
    const options: fc.WeightedArbitrary<string>[] = [
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 2, arbitrary: this.values.hostile(p.schema, p.name).map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? 'null')) },
      { weight: 1, arbitrary: this.values.boundary(p.schema, p.name).map(String) },
      { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 101, max: 3_000 }), fc.constantFrom('a', '0', 'é', '%', '\u{1F600}')).map(([n, c]) => c.repeat(n)) },
    ];
    if (pool.own.length) options.push({ weight: 4, arbitrary: fc.constantFrom(...pool.own) });
    if (pool.other.length) options.push({ weight: 4, arbitrary: fc.constantFrom(...pool.other) });
    return fc.oneof(...options).filter((v) => v !== '' && !this.staticSegments.has(v));
  }

  private body(op: Operation): fc.Arbitrary<{ payload?: string; headers: Record<string, string> }> {
    const json = (value: unknown) => ({ payload: JSON.stringify(value) ?? 'null', headers: { 'content-type': 'application/json' } });
    const odd: fc.WeightedArbitrary<{ payload?: string; headers: Record<string, string> }>[] = [
      { weight: 4, arbitrary: fc.constant({ payload: '', headers: { 'content-type': 'application/json' } }) },
      { weight: 4, arbitrary: fc.string({ maxLength: 30 }).map((text) => ({ payload: `{${text}`, headers: { 'content-type': 'application/json' } })) },
      {
        weight: 4,
        arbitrary: fc.tuple(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/jsonx'), fc.string({ maxLength: 30 }))
          .map(([type, text]) => ({ payload: text || 'x', headers: { 'content-type': type } })),
      },
      { weight: 1, arbitrary: fc.constant({ payload: `"${'x'.repeat(OVERSIZED_BODY)}"`, headers: { 'content-type': 'application/json' } }) },
    ];
    // Weights out of ~100 (and ~140 without a body): an oversized body is 5 MiB to generate and send, so it is rare.
    if (!op.body) {
      return fc.oneof(
        { weight: 120, arbitrary: fc.constant({ headers: {} }) },
        { weight: 8, arbitrary: fc.jsonValue({ maxDepth: 2 }).map(json) },
        ...odd,
      );
    }
    return fc.oneof(
      { weight: 48, arbitrary: this.values.valid(op.body).map(json) },
      { weight: 12, arbitrary: this.values.boundary(op.body).map(json) },
      { weight: 32, arbitrary: this.values.hostile(op.body).map(json) },
      { weight: 4, arbitrary: fc.constant({ headers: {} }) },
      ...odd,
    );
  }

  private caller(): fc.Arbitrary<Caller> {
    const garbage = fc.oneof(
      fc.constantFrom('Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'bearer ugt_', 'Bearer ugk_', 'Bearer  ugt_x', 'Token abc'),
      fc.tuple(fc.constantFrom('ugt_', 'ugk_', 'inv_', ''), fc.string({ unit: 'binary-ascii', maxLength: 60 })).map(([prefix, rest]) => `Bearer ${prefix}${rest}`),
      oddString(30).map((s) => `Bearer ${s}`),
      fc.string({ minLength: 5_000, maxLength: 7_000, size: 'max' }).map((s) => `Bearer ugt_${s}`),
    ).filter(sendableHeader);
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant({ kind: 'admin' as const }) },
      { weight: 2, arbitrary: fc.constant({ kind: 'viewer' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'key-write' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'key-read' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'key-both' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
      { weight: 1, arbitrary: garbage.map((authorization) => ({ kind: 'garbage' as const, authorization })) },
    );
  }
}
