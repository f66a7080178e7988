/** Page navigation for the lists' `page`/`limit` and exact `total`. */
export function Pager({ page, limit, total, onPage }: { page: number; limit: number; total: number; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / limit));
  const first = total === 0 ? 0 : (page - 1) * limit + 1;
  const last = Math.min(total, page * limit);
  return (
    <nav className="pager" aria-label="Pages">
      <span className="muted">{first.toLocaleString()}–{last.toLocaleString()} of {total.toLocaleString()}</span>
      <button type="button" className="button secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span>Page {page.toLocaleString()} of {pages.toLocaleString()}</span>
      <button type="button" className="button secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  );
}
