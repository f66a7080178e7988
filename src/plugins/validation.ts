import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const COMMON: Options = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false };

/**
 * Query strings and path parameters arrive as text and are coerced to their schema's types;
 * JSON bodies are not: `"0.5"` is not a risk score.
 */
export function registerValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(compileValidator);
}

const coercing = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' }));
const strict = addFormats(new Ajv({ ...COMMON, coerceTypes: false }));

function compileValidator({ schema, httpPart }: FastifyRouteSchemaDef<unknown>) {
  return (httpPart === 'body' ? strict : coercing).compile(schema as object);
}

/**
 * For a route whose handler validates its body itself (the schema stays for the API reference):
 * the body passes as sent, every other part is validated as usual.
 */
export function bodyValidatedByHandler(definition: FastifyRouteSchemaDef<unknown>) {
  return definition.httpPart === 'body' ? () => true : compileValidator(definition);
}
