import { useSearchParams } from 'react-router';

/** A positive integer from the URL (`page`), or the fallback for anything else. */
export function positiveInt(value: string | null, fallback: number): number {
  const number = Number(value);
  return Number.isInteger(number) && number >= 1 ? number : fallback;
}

/** The `page` search parameter and a setter that keeps the other parameters. */
export function usePageParam(): [number, (page: number) => void] {
  const [params, setParams] = useSearchParams();
  const page = positiveInt(params.get('page'), 1);
  const setPage = (next: number) => {
    const copy = new URLSearchParams(params);
    if (next <= 1) copy.delete('page');
    else copy.set('page', String(next));
    setParams(copy);
  };
  return [page, setPage];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date filter as the API takes it (date-time): a day from a date input (`2026-03-02`) is the
 * start of that local day, or its end for the end of a range; a full date-time passes through.
 */
export function dayToDateTime(value: string | null, end: boolean): string | undefined {
  if (!value) return undefined;
  if (!DAY.test(value)) return value;
  const date = new Date(`${value}T${end ? '23:59:59.999' : '00:00:00'}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The local day (`YYYY-MM-DD`) of a URL date filter, for a date input. */
export function dateTimeToDay(value: string | null): string {
  if (!value) return '';
  if (DAY.test(value)) return value;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
