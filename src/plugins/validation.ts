import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const COMMON: Options = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false };

/**
 * Query strings and path parameters arrive as text and are coerced to their schema's types;
 * JSON bodies are not: `"0.5"` is not a risk score.
 */
export function registerValidation(app: FastifyInstance): void {
  const coercing = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' }));
  const strict = addFormats(new Ajv({ ...COMMON, coerceTypes: false }));
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}
