import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { type EnvText, invalidVariable } from './config-error.js';
import { ANNOTATION_KEYWORDS, ENV_NAMES, type Env, type EnvName, EnvSchema, schemaOf } from './env-schema.js';

const DECIMAL = /^-?\d+$/;
const BOOLEAN_WORDS = new Map([['true', true], ['1', true], ['yes', true], ['false', false], ['0', false], ['no', false]]);

/**
 * A variable's text as a value of its schema's type: a decimal integer as a number, a boolean
 * word (any case) as a boolean, a comma-separated list as an array of its items. Text that does
 * not parse stays text, which the schema then refuses. Ajv's own coercion is not used: it would
 * take `1e3`, `0x10`, `+5` or `5.0` for integers, and only `true` and `false` for booleans.
 */
function parse(schema: TSchema, raw: string): unknown {
  const { type, items } = schema as { type?: string; items?: TSchema };
  if (type === 'integer') return DECIMAL.test(raw) ? Number(raw) : raw;
  if (type === 'boolean') return BOOLEAN_WORDS.get(raw.toLowerCase()) ?? raw;
  if (type === 'array' && items) return raw.split(',').map((part) => parse(items, part.trim()));
  return raw;
}

function compileSchema(): ValidateFunction<Env> {
  const ajv = new Ajv({ useDefaults: true, coerceTypes: false, allErrors: false });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  return ajv.compile<Env>(EnvSchema);
}

const validate = compileSchema();

/**
 * The declared variables of `env`, trimmed (an empty one is unset), parsed, given their
 * defaults and validated by the schema: the first failing variable, in the schema's order,
 * throws a ConfigError. Returns the values and their text, for the checks that follow.
 */
export function readEnv(env: Readonly<Record<string, string | undefined>>): { values: Env; text: EnvText } {
  const text: EnvText = {};
  const input: Record<string, unknown> = {};
  for (const name of ENV_NAMES) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    text[name] = raw;
    input[name] = parse(schemaOf(name), raw);
  }
  if (!validate(input)) {
    // `/NAME` or, for an item of a list, `/NAME/2`.
    const name = validate.errors?.[0]?.instancePath.split('/')[1] as EnvName | undefined;
    if (!name) throw new Error(`the environment schema failed: ${JSON.stringify(validate.errors)}`);
    throw invalidVariable(name, text, input);
  }
  return { values: input, text };
}
