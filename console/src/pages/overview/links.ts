/** Links from the overview's numbers to the lists behind them, over the same date range. */
export interface Range {
  start?: string;
  end?: string;
}

export function interactionsLink(range: Range, filters: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  if (range.start) query.set('start_date', range.start);
  if (range.end) query.set('end_date', range.end);
  for (const [key, value] of Object.entries(filters)) if (value !== undefined) query.set(key, value);
  const text = query.toString();
  return text ? `/interactions?${text}` : '/interactions';
}

export function alertsLink(filters: Record<string, string>): string {
  return `/alerts?${new URLSearchParams(filters).toString()}`;
}

/**
 * A risk band [min, max) as the list's inclusive bounds: the last band includes 1; the others stop
 * at the largest double below their max, written so that it parses back to that same double, so
 * the list counts exactly the band's rows.
 */
export function riskBounds(min: number, max: number): { risk_score_min: string; risk_score_max: string } {
  return { risk_score_min: String(min), risk_score_max: String(max >= 1 ? 1 : doubleBelow(max)) };
}

function doubleBelow(value: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}

/** A bucket of the series as list bounds: its start, and the millisecond before the next one, within the range. */
export function bucketRange(range: Range, start: string, next: string | undefined): Range {
  const from = range.start && range.start > start ? range.start : start;
  const nextMs = next ? Date.parse(next) - 1 : undefined;
  const to = nextMs === undefined ? range.end : new Date(nextMs).toISOString();
  const end = range.end && to && range.end < to ? range.end : to;
  return { start: from, ...(end ? { end } : {}) };
}
