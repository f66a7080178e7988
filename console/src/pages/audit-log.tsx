import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../api/client.js';
import { useIsAdmin } from '../api/use-session.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorBanner, PageHeader, QueryState } from '../components/ui.js';
import { usePageParam } from '../lib/url-state.js';
import { EntriesTable } from './audit-log/entries-table.js';
import { ExportButton } from '../components/export-button.js';
import { AuditFilterForm } from './audit-log/filter-form.js';
import { auditQuery } from './audit-log/filters.js';

const LIMIT = 50;

export function AuditLogPage() {
  const isAdmin = useIsAdmin();
  const [params] = useSearchParams();
  const [page, setPage] = usePageParam();
  const [exportError, setExportError] = useState<unknown>(null);
  const filters = auditQuery(params);
  const log = useQuery({
    queryKey: ['audit-log', filters, page],
    queryFn: () => api.GET('/api/v1/audit-log', { params: { query: { ...filters, page, limit: LIMIT } } }),
  });
  const filtered = Object.values(filters).some(Boolean);
  const filterKey = new URLSearchParams([...params].filter(([key]) => key !== 'page')).toString();

  return (
    <>
      <PageHeader title="Audit log" actions={isAdmin && <ExportButton path="/api/v1/audit-log/export" query={filters} fallbackName="audit-log.csv" onError={setExportError} />}>
        Every administrative change and sign-in: who, what, when and from where.
      </PageHeader>
      {exportError !== null && <ErrorBanner error={exportError} />}
      {/* The log is the admins'; others get the API's refusal below, without filters that would also be refused. */}
      {isAdmin && <AuditFilterForm key={filterKey} />}
      <QueryState query={log}>
        {(data) => data.entries.length === 0 ? <Empty>{filtered ? 'No entries match these filters.' : 'No entries yet.'}</Empty> : (
          <>
            <EntriesTable entries={data.entries} />
            <Pager page={page} limit={LIMIT} total={data.total} onPage={setPage} />
          </>
        )}
      </QueryState>
    </>
  );
}
