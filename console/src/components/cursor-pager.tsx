import { useLocation, useSearchParams } from 'react-router';

/**
 * The cursors of the pages before this one, nearest last ('' stands for the first page). They
 * live in the history entry's state, so the browser's Back button and a reload keep them.
 */
function previousCursors(state: unknown): string[] {
  const cursors = (state as { cursors?: unknown } | null)?.cursors;
  return Array.isArray(cursors) && cursors.every((c) => typeof c === 'string') ? cursors : [];
}

export interface CursorPaging {
  /** The `cursor` search param: the page shown (undefined for the first). */
  cursor: string | undefined;
  hasPrevious: boolean;
  next(nextCursor: string): void;
  previous(): void;
  first(): void;
}

/** Cursor paging kept in the URL (`cursor`): Next follows `next_cursor`, Previous pops the pages walked through. */
export function useCursorPaging(): CursorPaging {
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const cursor = params.get('cursor') ?? undefined;
  const previous = previousCursors(location.state);

  const go = (target: string | undefined, cursors: string[]) => {
    const next = new URLSearchParams(params);
    if (target) next.set('cursor', target);
    else next.delete('cursor');
    setParams(next, { state: { cursors } });
  };

  return {
    cursor,
    hasPrevious: previous.length > 0,
    next: (nextCursor) => go(nextCursor, [...previous, cursor ?? '']),
    previous: () => go(previous.at(-1) || undefined, previous.slice(0, -1)),
    first: () => go(undefined, []),
  };
}

/** Navigation of a cursor-paged list: the rows' positions in the exact total, First/Previous/Next. */
export function CursorPager({ paging, offset, count, total, nextCursor }: {
  paging: CursorPaging;
  /** The list's `offset`: position of the page's first row. */
  offset: number;
  count: number;
  total: number;
  nextCursor: string | null;
}) {
  const first = count === 0 ? 0 : offset + 1;
  return (
    <nav className="pager" aria-label="Pages">
      <span className="muted" data-testid="page-range">
        {first.toLocaleString()}–{(offset + count).toLocaleString()} of {total.toLocaleString()}
      </span>
      {paging.cursor && <button type="button" className="button secondary" onClick={paging.first}>First page</button>}
      <button type="button" className="button secondary" disabled={!paging.hasPrevious} onClick={paging.previous}>Previous</button>
      <button type="button" className="button secondary" disabled={!nextCursor} onClick={() => nextCursor && paging.next(nextCursor)}>Next</button>
    </nav>
  );
}
