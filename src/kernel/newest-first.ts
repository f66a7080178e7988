/**
 * Sets `key` as the newest entry of `map` and, past `max` entries, drops the oldest: a bounded
 * cache in a plain Map, which keeps insertion order.
 */
export function rememberNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}
