import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { FastifyRouteSchemaDef, FastifySchemaCompiler } from 'fastify/types/schema.js';
import type { TSchema } from 'typebox';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const COMMON: Options = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false };

/**
 * Query strings and path parameters arrive as text and are coerced to their schema's types;
 * JSON bodies are not: `"0.5"` is not a risk score. Both validators know the component schemas,
 * which route schemas reference by `$id`; Fastify gets them too, for its response serializer.
 */
export function registerValidation(app: FastifyInstance, componentSchemas: readonly TSchema[]): void {
  for (const schema of componentSchemas) app.addSchema(schema);
  const coercing = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' })).addSchema([...componentSchemas]);
  const strict = addFormats(new Ajv({ ...COMMON, coerceTypes: false })).addSchema([...componentSchemas]);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object));
}

function appCompiler(app: FastifyInstance): FastifySchemaCompiler<unknown> {
  const compile = app.validatorCompiler;
  if (!compile) throw new Error('registerValidation must run before the routes are registered');
  return compile;
}

/**
 * For a route whose handler validates its body itself (the schema stays for the API reference):
 * the body passes as sent, every other part is validated as usual.
 */
export function bodyValidatedByHandler(app: FastifyInstance) {
  const compile = appCompiler(app);
  return (definition: FastifyRouteSchemaDef<unknown>) => (definition.httpPart === 'body' ? () => true : compile(definition));
}

/**
 * For a route whose documented body says more than what is refused up front (a batch whose
 * invalid items are skipped, not refused): the body is validated against `bodySchema` instead.
 */
export function bodyValidatedAs(app: FastifyInstance, bodySchema: object) {
  const compile = appCompiler(app);
  return (definition: FastifyRouteSchemaDef<unknown>) =>
    compile(definition.httpPart === 'body' ? { ...definition, schema: bodySchema } : definition);
}
