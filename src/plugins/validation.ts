import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import { COMPONENT_SCHEMAS } from './components.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const COMMON: Options = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false };

/**
 * Query strings and path parameters arrive as text and are coerced to their schema's types;
 * JSON bodies are not: `"0.5"` is not a risk score. Both validators know the component schemas,
 * which route schemas reference by `$id`; Fastify gets them too, for its response serializer.
 */
export function registerValidation(app: FastifyInstance): void {
  for (const schema of COMPONENT_SCHEMAS) app.addSchema(schema);
  app.setValidatorCompiler(compileValidator);
}

const coercing = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' })).addSchema([...COMPONENT_SCHEMAS]);
const strict = addFormats(new Ajv({ ...COMMON, coerceTypes: false })).addSchema([...COMPONENT_SCHEMAS]);

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

/**
 * For a route whose documented body says more than what is refused up front (a batch whose
 * invalid items are skipped, not refused): the body is validated against `bodySchema` instead.
 */
export function bodyValidatedAs(bodySchema: object) {
  return (definition: FastifyRouteSchemaDef<unknown>) =>
    compileValidator(definition.httpPart === 'body' ? { ...definition, schema: bodySchema } : definition);
}
