// Figures of the benches: each beside its limit measured in the same run and its target.

/** Nearest-rank percentile of `values` (missing answers may be passed as Infinity). */
export function percentile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

const round = (n) => {
  if (typeof n !== 'number') return n ?? '-';
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'n/a' : '∞';
  const abs = Math.abs(n);
  return abs >= 100 ? Math.round(n) : abs >= 10 ? Math.round(n * 10) / 10 : Math.round(n * 100) / 100;
};

const ratio = (a, b) => (typeof a === 'number' && typeof b === 'number' && b !== 0 && Number.isFinite(a) ? round(a / b) : '-');

const meets = (value, { op, value: goal }) => {
  if (typeof value !== 'number' || Number.isNaN(value)) return false;
  if (op === 'between') return value >= goal[0] && value <= goal[1];
  return { '<=': value <= goal, '<': value < goal, '>=': value >= goal, '==': value === goal }[op];
};

/** A target relative to the limit (`{ op, times }`) made absolute; `label` is how the table shows it. */
function absolute(target, limit) {
  if (!target) return undefined;
  if (target.op === 'between') return { ...target, label: `${round(target.value[0])}..${round(target.value[1])}` };
  if (target.times === undefined) return { ...target, label: `${target.op} ${target.value}` };
  const value = typeof limit === 'number' ? target.times * limit : NaN;
  return { op: target.op, value, label: `${target.op} ${target.times}x limit (${round(value)})` };
}

/**
 * One table row. `limit` is what the same run measured as the ceiling (or floor) for this figure,
 * `target` `{ op, value }` what the figure should reach (`{ op, times }`: `times` x the limit; `{ op: 'between',
 * value: [low, high] }`); `reached: false` marks a partial figure (its budget ran out or a step failed).
 */
export function figure({ scenario, name, value, limit, limitIs, target: given, reached = true }) {
  const target = absolute(given, limit);
  const verdict = !reached ? 'not reached' : target ? (meets(value, target) ? 'yes' : 'NO') : '-';
  return {
    scenario,
    figure: name,
    value: reached ? round(value) : `${round(value)} (partial)`,
    limit: round(limit),
    'limit is': limit === undefined ? '-' : limitIs ?? '-',
    'x limit': ratio(value, limit),
    target: target ? target.label : '-',
    'x target': target && target.value !== 0 ? ratio(value, target.value) : '-',
    ok: verdict,
  };
}
