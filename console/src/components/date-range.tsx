import { Field } from './ui.js';

/** `yyyy-mm-dd` of an ISO date-time in the browser's time zone, for a date input ('' when unset or invalid). */
function localDay(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The ISO date-time of a local day's first (or last) millisecond: the API's bounds are both inclusive. */
function dayBound(day: string, end: boolean): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const [year, month, date] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const bound = end ? new Date(year, month, date, 23, 59, 59, 999) : new Date(year, month, date);
  return bound.toISOString();
}

/**
 * A start/end pair of days ("From", "To") giving ISO date-times for the API's `start_date` and
 * `end_date`: From is the start of its day, To the end of its day, in the browser's time zone.
 */
export function DateRange({ start, end, onChange }: { start?: string; end?: string; onChange(start?: string, end?: string): void }) {
  const startDay = localDay(start);
  const endDay = localDay(end);
  return (
    <div role="group" aria-label="Date range" style={{ display: 'flex', gap: 12, alignItems: 'flex-end' }}>
      <Field label="From">
        <input type="date" value={startDay} max={endDay || undefined} onChange={(e) => onChange(dayBound(e.target.value, false), end)} />
      </Field>
      <Field label="To">
        <input type="date" value={endDay} min={startDay || undefined} onChange={(e) => onChange(start, dayBound(e.target.value, true))} />
      </Field>
    </div>
  );
}
