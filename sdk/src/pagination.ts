import { ApiError } from './errors.js';

type Get = (path: string, init?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
type Init = { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;

/**
 * Walks a list: by `next_cursor` while the body has one (every list of the service does; a walk
 * by cursor sees each row once even while rows are added), else by page number up to
 * `X-Total-Pages` (or the first empty page). Starts at the caller's `page` or `cursor` if given.
 */
export async function* paginate(get: Get, path: string, init: object | undefined, mode: 'page' | 'item'): AsyncGenerator<unknown, void, undefined> {
  const base = (init ?? {}) as Init;
  const query: Record<string, unknown> = { ...base.params?.query };
  let page = typeof query.page === 'number' ? query.page : 1;
  for (;;) {
    const { data, error, response } = await get(path, { ...base, params: { ...base.params, query: { ...query } } });
    if (!response.ok) throw ApiError.from(response, error);
    const items = itemsOf(data);
    if (mode === 'page') yield data;
    else yield* items;

    if (Array.isArray(data)) return;
    const nextCursor = (data as { next_cursor?: unknown }).next_cursor;
    if (nextCursor !== undefined) {
      if (typeof nextCursor !== 'string' || nextCursor === '') return;
      delete query.page;
      query.cursor = nextCursor;
      continue;
    }
    const totalPages = Number(response.headers.get('x-total-pages') ?? Number.NaN);
    if (items.length === 0 || (Number.isFinite(totalPages) && page >= totalPages)) return;
    page += 1;
    query.page = page;
  }
}

/** The items of a list body: the body itself if it is an array, else its array-valued property. */
function itemsOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) return [];
  const list = Object.values(body).find(Array.isArray);
  return list ?? [];
}
