import { type EnvName, schemaOf } from './env-schema.js';

/** A bad environment variable: the start stops with this one line, naming the variable. */
export class ConfigError extends Error {
  constructor(readonly variable: string, expected: string, value: string) {
    super(`Invalid configuration: ${variable}=${JSON.stringify(value)}; expected ${expected}`);
  }
}

/** The variables' values as given (trimmed; empty ones left out), for messages. */
export type EnvText = Partial<Record<EnvName, string>>;

/**
 * The error for variable `name`, worded by its schema: its `expected` annotation (`{OTHER}`
 * replaced by the value of variable OTHER in `values`) and its value, or `<hidden>` for a secret.
 */
export function invalidVariable(name: EnvName, text: EnvText, values: Readonly<Record<string, unknown>>): ConfigError {
  const { expected, secret, protocols } = schemaOf(name);
  const wording = expected.replace(/\{(\w+)\}/g, (_, other: string) => String(values[other]));
  const shown = text[name] ?? String(values[name]);
  return new ConfigError(name, wording, secret ? '<hidden>' : protocols ? withoutPassword(shown) : shown);
}

/** A URL's password (`scheme://user:password@host`) never reaches the message that stops the start. */
function withoutPassword(url: string): string {
  return url.replace(/^([^/@]*\/\/[^/@:]*):[^/@]*@/, '$1:***@');
}
