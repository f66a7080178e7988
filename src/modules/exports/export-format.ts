import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** One column of a CSV export: its header and how a record gives its cell. */
export interface CsvColumn<T> {
  header: string;
  cell: (record: T) => string | number | null;
}

/**
 * The records as a byte stream in the format, pulled from `records` only as fast as the client
 * reads (the stream's back-pressure), so memory stays the same whatever the export's size.
 * CSV cells that a spreadsheet would run as formulas (starting with = + - @) are escaped.
 */
export function exportStream<T>(format: ExportFormat, records: AsyncIterable<T>, columns: readonly CsvColumn<T>[]): Readable {
  if (format === 'ndjson') {
    return Readable.from((async function* lines() {
      for await (const record of records) yield `${JSON.stringify(record)}\n`;
    })());
  }
  const rows = Readable.from((async function* cells() {
    for await (const record of records) yield columns.map((column) => column.cell(record));
  })());
  return rows.pipe(stringify({ header: true, columns: columns.map((column) => column.header), escape_formulas: true }));
}

/** `interactions-20261125T101500Z.csv`: what the file is and when it was made. */
export function exportFileName(what: string, format: ExportFormat, at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${what}-${stamp}.${format}`;
}
