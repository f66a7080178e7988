import { AppError, validationError } from './errors.js';

export interface DateRange {
  start?: Date | undefined;
  end?: Date | undefined;
}

/**
 * The `start_date`/`end_date` query pair as dates (both inclusive). The schema checked their
 * format; this refuses what still is no instant (e.g. a leap second) and an inverted range.
 */
export function parseDateRange(query: { start_date?: string | undefined; end_date?: string | undefined }): DateRange {
  const start = toDate('start_date', query.start_date);
  const end = toDate('end_date', query.end_date);
  if (start && end && start > end) {
    throw new AppError('validation_error', 'Invalid request: query.start_date must not be after query.end_date', {
      details: [{ path: 'query.start_date', message: 'must not be after end_date' }],
    });
  }
  return { start, end };
}

function toDate(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw validationError(`query.${name}`, 'must be an ISO 8601 date-time');
  return date;
}
