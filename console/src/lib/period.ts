import { useSearchParams } from 'react-router';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The start of the local day `days - 1` days ago: a default period of `days` days ending now. */
export function defaultStart(days: number): string {
  const day = new Date(Date.now() - (days - 1) * DAY_MS);
  return new Date(day.getFullYear(), day.getMonth(), day.getDate()).toISOString();
}

export interface Period {
  start: string;
  end: string | undefined;
  /** The period as the API's `start_date` and `end_date`. */
  query: { start_date: string; end_date?: string };
  /** A new period; the page goes back to 1, the other parameters (filters) stay. */
  set(start?: string, end?: string): void;
}

/** The period of a page kept in its URL (`start_date`, `end_date`), the last `defaultDays` days when unset. */
export function usePeriod(defaultDays: number): Period {
  const [params, setParams] = useSearchParams();
  const start = params.get('start_date') ?? defaultStart(defaultDays);
  const end = params.get('end_date') ?? undefined;
  return {
    start,
    end,
    query: { start_date: start, ...(end ? { end_date: end } : {}) },
    set(nextStart, nextEnd) {
      // From the address bar: fresher than `params` when two changes come before a render.
      const next = new URLSearchParams(globalThis.location.search);
      next.delete('page');
      if (nextStart) next.set('start_date', nextStart);
      else next.delete('start_date');
      if (nextEnd) next.set('end_date', nextEnd);
      else next.delete('end_date');
      setParams(next);
    },
  };
}
