import type { PageRequest } from '../../kernel/paging/pagination.js';

/** Rows fetched per query while walking a list for an export. */
export const EXPORT_PAGE_ROWS = 1000;

type PageFetcher<T> = (request: PageRequest) => Promise<{ rows: T[]; nextCursor: string | null }>;

/**
 * Every row of a list, page after page by its keyset cursor: each page is one short query, and
 * rows created after the walk passed their place are not included. The first page is read
 * before this returns, so a failing store is an error response, not a cut stream.
 */
export async function walkKeyset<T>(fetchPage: PageFetcher<T>): Promise<AsyncIterable<T>> {
  const first = await fetchPage({ limit: EXPORT_PAGE_ROWS, offset: 0, cursor: undefined });
  return (async function* rows() {
    let page = first;
    for (;;) {
      yield* page.rows;
      if (!page.nextCursor) return;
      page = await fetchPage({ limit: EXPORT_PAGE_ROWS, offset: 0, cursor: page.nextCursor });
    }
  })();
}
