/**
 * Events/s over the second half of a drain's receipt times (ms, any order): the rate once the work a
 * restart starts with (counts folded, tables analysed and vacuumed after the queueing) is behind it,
 * beside the whole drain's.
 */
export function secondHalfRate(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const span = (sorted.at(-1) ?? 0) - (sorted[middle] ?? 0);
  return span > 0 ? ((sorted.length - 1 - middle) * 1000) / span : 0;
}
