import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { resolve, type OpenApiDocument, type Operation } from './requests.js';
import type { Schema } from './schema-values.js';

// Both are CommonJS; their default exports arrive wrapped under NodeNext.
const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;
const addFormats = addFormatsModule as unknown as (ajv: InstanceType<typeof Ajv2020>) => unknown;

export type ProblemKind = 'server_error' | 'undocumented_status' | 'schema_violation' | 'stack_trace' | 'leak';

export interface Problem {
  kind: ProblemKind;
  message: string;
}

export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** The id under which the document's components are known to ajv, so that `#/components/…` references resolve. */
const DOCUMENT_ID = 'urn:fuzz:openapi';
const STACK_TRACE = /\n\s+at [^\n]+:\d+:\d+|\bat (?:async )?[\w.<>]+ \((?:file:\/\/|node:|\/)[^)]*\)|node:internal\//;

/**
 * Checks an answer against the operation's contract in the document: a documented status, the
 * documented media type and body schema, X-Request-Id; never a 5xx, never a stack trace, and never
 * a value of another tenant that the request did not itself carry.
 */
export class ResponseChecker {
  private readonly ajv: InstanceType<typeof Ajv2020>;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: rebase(doc.components.schemas) } });
  }

  check(op: Operation, answer: Answer, requestText: string, foreign: readonly string[]): Problem[] {
    const problems: Problem[] = [];
    const { statusCode: status, body } = answer;
    if (status >= 500) problems.push({ kind: 'server_error', message: `${status}: ${body.slice(0, 300)}` });
    if (STACK_TRACE.test(body)) problems.push({ kind: 'stack_trace', message: body.slice(0, 300) });
    const lowerBody = body.toLowerCase();
    const lowerRequest = requestText.toLowerCase();
    for (const value of foreign) {
      const lower = value.toLowerCase();
      if (lowerBody.includes(lower) && !lowerRequest.includes(lower)) {
        const at = lowerBody.indexOf(lower);
        problems.push({ kind: 'leak', message: `another tenant's ${JSON.stringify(value)} in: …${body.slice(Math.max(0, at - 250), at + 100)}…` });
      }
    }
    if (!answer.headers['x-request-id']) problems.push({ kind: 'schema_violation', message: `${status} without X-Request-Id` });
    const documented = op.responses[String(status)];
    if (!documented) {
      problems.push({ kind: 'undocumented_status', message: `${status} (documented: ${Object.keys(op.responses).join(', ')}): ${body.slice(0, 200)}` });
      return problems;
    }
    const response = documented.$ref ? resolve(this.doc, documented.$ref) : documented;
    const content = (response.content ?? {}) as Record<string, { schema?: Schema }>;
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      if (body.length > 0) problems.push({ kind: 'schema_violation', message: `${status} has a body, documented without one: ${body.slice(0, 200)}` });
      return problems;
    }
    const contentType = String(answer.headers['content-type'] ?? '');
    const mediaType = mediaTypes.find((m) => sameMediaType(m, contentType));
    if (!mediaType) {
      problems.push({ kind: 'schema_violation', message: `${status} as ${contentType || 'no Content-Type'} (documented: ${mediaTypes.join(', ')})` });
      return problems;
    }
    if (!/^application\/(.+\+)?json$/.test(mediaType.split(';')[0]!.trim())) return problems;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      problems.push({ kind: 'schema_violation', message: `${status} ${mediaType} is not JSON: ${body.slice(0, 200)}` });
      return problems;
    }
    const validate = this.validator(`${op.operationId} ${status} ${mediaType}`, content[mediaType]!.schema ?? {});
    if (!validate(parsed)) {
      const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
      problems.push({ kind: 'schema_violation', message: `${status} body: ${errors}: ${body.slice(0, 200)}` });
    }
    return problems;
  }

  private validator(key: string, schema: Schema): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema) as object);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

/** A copy of `schema` whose document-local references point into the document registered with ajv. */
function rebase(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [
    key, key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOCUMENT_ID}${value}` : rebase(value),
  ]));
}

function sameMediaType(documented: string, actual: string): boolean {
  const essence = (type: string) => type.split(';')[0]!.trim().toLowerCase();
  return essence(documented) === essence(actual);
}
