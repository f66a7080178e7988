import { createHash } from 'node:crypto';
import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { validationError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { PageInfo, PageRequest } from './pagination.js';

/**
 * Keyset ("cursor") pagination shared by every list (docs/conventions.md, "Pagination").
 * A cursor is base64url of `{"v":1,"f":<fingerprint>,"k":[<sort-key values of the page's last
 * row>],"o":<offset of the next page>}`. It is opaque to clients, not secret: a forged cursor
 * can only choose where a page of the caller's own tenant starts.
 */
const CURSOR_VERSION = 1;
const MAX_TEXT_KEY_LENGTH = 320;

type KeyType = 'instant' | 'uuid' | 'text' | 'number';

const SQL_TYPE: Record<KeyType, string> = {
  instant: 'timestamptz', uuid: 'uuid', text: 'text', number: 'double precision',
};

export interface SortKey {
  /** The column or expression, exactly as the index serving the sort has it. */
  expression: RawBuilder<unknown>;
  type: KeyType;
  /** Bounds of a number key. */
  range?: [number, number];
}

/** Sort keys of a total order (the last ones are unique together), all in one direction. */
export interface Keyset {
  keys: SortKey[];
  direction: 'asc' | 'desc';
}

export const sortKey = {
  instant: (column: string): SortKey => ({ expression: sql.ref(column), type: 'instant' }),
  uuid: (column: string): SortKey => ({ expression: sql.ref(column), type: 'uuid' }),
  text: (expression: string | RawBuilder<unknown>): SortKey =>
    ({ expression: typeof expression === 'string' ? sql.ref(expression) : expression, type: 'text' }),
  number: (column: string, range: [number, number]): SortKey => ({ expression: sql.ref(column), type: 'number', range }),
};

/** What makes a list what it is: its name, sort and normalised filters (never page or limit). */
export type ListScope = Record<string, string | number | boolean | Date | null | undefined>;

/** A short digest of a list's scope: a cursor is only valid for the scope it was made for. */
export function fingerprintOf(scope: ListScope): string {
  const entries = Object.keys(scope).sort().flatMap((name) => {
    const value = scope[name];
    if (value === undefined) return [];
    return [[name, value instanceof Date ? value.toISOString() : value]];
  });
  return createHash('sha256').update(JSON.stringify(entries)).digest('base64url').slice(0, 16);
}

interface CursorBody {
  v: number;
  f: string;
  k: unknown[];
  o: number;
}

/** One page of a list read by keyset: the rows after the cursor's key, or from the page's offset without one. */
export class KeysetPage {
  private constructor(
    readonly limit: number,
    readonly offset: number,
    private readonly after: unknown[] | undefined,
    private readonly keyset: Keyset,
    private readonly fingerprint: string,
  ) {}

  /** Decodes the request's cursor: a 400 `validation_error` on `query.cursor` unless it is well formed and made for this scope. */
  static open(request: PageRequest, keyset: Keyset, scope: ListScope): KeysetPage {
    const fingerprint = fingerprintOf(scope);
    if (request.cursor === undefined) return new KeysetPage(request.limit, request.offset, undefined, keyset, fingerprint);
    const body = decode(request.cursor);
    if (body.f !== fingerprint) throw badCursor('was made for other filters or another sort');
    if (body.k.length !== keyset.keys.length || !keyset.keys.every((key, i) => isKeyValue(key, body.k[i]))) {
      throw badCursor('is not a valid cursor');
    }
    return new KeysetPage(request.limit, body.o, body.k, keyset, fingerprint);
  }

  /** The key values the page starts after, when its request had a cursor (for a list ranked in memory). */
  get afterKey(): readonly unknown[] | undefined {
    return this.after;
  }

  /**
   * The query in the keyset's order, limited to one row more than a page (that row only tells
   * whether a next page exists), after the cursor's key when there is one (a row-value
   * comparison an index seeks to, never an OFFSET), else from the requested offset.
   */
  apply<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) {
    const { keys, direction } = this.keyset;
    const after = this.after;
    let paged = query.select(sql<unknown[]>`json_build_array(${sql.join(keys.map(keyValueSql))})`.as('cursor_key'));
    if (after) {
      const columns = sql.join(keys.map((key) => key.expression));
      const bound = sql.join(keys.map((key, i) => sql`cast(${after[i]} as ${sql.raw(SQL_TYPE[key.type])})`));
      paged = paged.where(sql<SqlBool>`(${columns}) ${sql.raw(direction === 'asc' ? '>' : '<')} (${bound})`);
    }
    for (const key of keys) paged = paged.orderBy(key.expression, direction);
    paged = paged.limit(this.limit + 1);
    return after ? paged : paged.offset(this.offset);
  }

  /** The page's rows (without their cursor key) and where the next page starts. */
  close<R extends { cursor_key: unknown[] }>(rows: R[]): { rows: Array<Omit<R, 'cursor_key'>>; page: PageInfo } {
    const last = rows.length > this.limit ? rows[this.limit - 1] : undefined;
    const nextOffset = this.offset + this.limit;
    const nextCursor = last ? encode({ v: CURSOR_VERSION, f: this.fingerprint, k: last.cursor_key, o: nextOffset }) : null;
    return {
      rows: rows.slice(0, this.limit).map(({ cursor_key: _key, ...row }) => row),
      page: { limit: this.limit, offset: this.offset, nextCursor },
    };
  }
}

/** Instants travel with the microseconds PostgreSQL stores (a JS Date would drop them). */
function keyValueSql(key: SortKey): RawBuilder<unknown> {
  return key.type === 'instant'
    ? sql`to_char(${key.expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : key.expression;
}

function encode(body: CursorBody): string {
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

function decode(cursor: string): CursorBody {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw badCursor('is not a valid cursor');
  const bytes = Buffer.from(cursor, 'base64url');
  // Buffer ignores what it cannot decode: only the canonical spelling of some bytes is accepted.
  if (bytes.toString('base64url') !== cursor) throw badCursor('is not a valid cursor');
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw badCursor('is not a valid cursor');
  }
  if (!isCursorBody(body)) throw badCursor('is not a valid cursor');
  if (body.v !== CURSOR_VERSION) throw badCursor('was made by another version of the service');
  return body;
}

function isCursorBody(value: unknown): value is CursorBody {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const body = value as Record<string, unknown>;
  return Object.keys(body).sort().join() === 'f,k,o,v' && typeof body.v === 'number' && typeof body.f === 'string' &&
    Array.isArray(body.k) && Number.isSafeInteger(body.o) && (body.o as number) >= 0;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}Z$/;

function isKeyValue(key: SortKey, value: unknown): boolean {
  switch (key.type) {
    case 'instant':
      return typeof value === 'string' && isInstant(value);
    case 'uuid':
      return typeof value === 'string' && isUuid(value);
    case 'text':
      return typeof value === 'string' && value.length <= MAX_TEXT_KEY_LENGTH && !value.includes('\u0000');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) &&
        (!key.range || (value >= key.range[0] && value <= key.range[1]));
  }
}

/** A real calendar instant (no 31 February, no hour 24), as `keyValueSql` writes it. */
function isInstant(value: string): boolean {
  const parts = INSTANT.exec(value);
  if (!parts) return false;
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return year >= 1000 && date.toISOString().slice(0, 19) === value.slice(0, 19);
}

const badCursor = (message: string) => validationError('query.cursor', message);
