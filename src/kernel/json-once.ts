const serialised = new WeakMap<object, string>();

/**
 * `JSON.stringify(value)`, computed once per object: an interaction's row, its events' `data`
 * and its envelopes share one serialisation (the batch path spent a third of its CPU in JSON).
 * Only for objects that are not changed after their first serialisation.
 */
export function jsonOf(value: object): string {
  let json = serialised.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    serialised.set(value, json);
  }
  return json;
}
