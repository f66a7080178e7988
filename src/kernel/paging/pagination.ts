import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { validationError } from '../errors.js';
import { Nullable } from '../schemas.js';

export const MAX_PAGE_SIZE = 500;
/** Longest cursor accepted: a cursor holds the sort keys of one row and a short fingerprint. */
export const MAX_CURSOR_LENGTH = 1024;
const DEFAULT_PAGE_SIZE = 50;

export const PageQuery = {
  // No schema default: a `page` the client did not send must be told apart from `page=1` (not with `cursor`).
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000,
    description: '1-based page number, default 1; not with `cursor`' })),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Items per page' }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH,
    description: 'The `next_cursor` of the previous page, for the same filters and sort; not with `page`' })),
};

/** The field every list body has beside its items and `total`. */
export const NextCursor = Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last page' }));

/** What a list request asks for: a page by number (its offset), or the page after a cursor. */
export interface PageRequest {
  limit: number;
  offset: number;
  cursor: string | undefined;
}

/** Where a page sits in its list, and how to ask for the next one (null on the last page). */
export interface PageInfo {
  limit: number;
  offset: number;
  nextCursor: string | null;
}

export function toPage(query: { page?: number | undefined; limit?: number | undefined; cursor?: string | undefined }): PageRequest {
  if (query.page !== undefined && query.cursor !== undefined) {
    throw validationError('query.cursor', 'cannot be combined with page: the cursor tells where its page starts');
  }
  const page = query.page ?? 1;
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  return { limit, offset: (page - 1) * limit, cursor: query.cursor };
}

/** The pagination headers every list sends, with `Link: <…>; rel="next"` when a next page exists. */
export function setPageHeaders(reply: FastifyReply, page: PageInfo, total: number): void {
  reply.header('X-Total-Count', String(total));
  reply.header('X-Page', String(Math.floor(page.offset / page.limit) + 1));
  reply.header('X-Per-Page', String(page.limit));
  reply.header('X-Total-Pages', String(Math.ceil(total / page.limit)));
  if (page.nextCursor !== null) {
    reply.header('Link', `<${nextPageUrl(reply.request.url, page.nextCursor)}>; rel="next"`);
  }
}

/** The request's own path and query, `page` and `cursor` replaced by the next cursor. */
function nextPageUrl(url: string, cursor: string): string {
  const separator = url.indexOf('?');
  const path = separator === -1 ? url : url.slice(0, separator);
  const params = new URLSearchParams(separator === -1 ? '' : url.slice(separator + 1));
  params.delete('page');
  params.delete('cursor');
  params.append('cursor', cursor);
  // URLSearchParams writes a space as `+`; `%20` reads the same to every query parser.
  return `${path}?${params.toString().replaceAll('+', '%20')}`;
}
