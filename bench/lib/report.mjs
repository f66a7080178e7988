// Figures of the delivery bench: each beside its limit measured in the same run and its target.

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
  return { '<=': value <= goal, '<': value < goal, '>=': value >= goal, '==': value === goal }[op];
};

/**
 * One table row. `limit` is what the same run measured as the ceiling (or floor) for this figure,
 * `target` `{ op, value }` what the figure should reach; `reached: false` marks a partial figure
 * (its budget ran out or a step failed).
 */
export function figure({ scenario, name, value, limit, limitIs, target, reached = true }) {
  const verdict = !reached ? 'not reached' : target ? (meets(value, target) ? 'yes' : 'NO') : '-';
  return {
    scenario,
    figure: name,
    value: reached ? round(value) : `${round(value)} (partial)`,
    limit: round(limit),
    'limit is': limit === undefined ? '-' : limitIs ?? '-',
    'x limit': ratio(value, limit),
    target: target ? `${target.op} ${target.value}` : '-',
    'x target': target && target.value !== 0 ? ratio(value, target.value) : '-',
    ok: verdict,
  };
}
