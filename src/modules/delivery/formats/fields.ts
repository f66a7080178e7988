/** Readers of a stored envelope's untyped JSON, shared by the formats that map it field by field. */
export type Fields = Record<string, unknown>;

export function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string. */
export function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

export const text = (value: unknown): string | undefined => (isText(value) ? value : undefined);
export const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
