import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../api/client.js';
import { useIsAdmin } from '../api/use-session.js';
import { DateRange } from '../components/date-range.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorBanner, Loading, PageHeader, SuccessBanner } from '../components/ui.js';
import { usePeriod } from '../lib/period.js';
import { usePageParam } from '../lib/url-state.js';
import { discoveredApps, displayName, filtersOf, joinApps, label, STATUSES, type Filters, type Platform } from './ai-apps/apps.js';
import { AppsTable } from './ai-apps/apps-table.js';
import { CatalogFilters } from './ai-apps/catalog-filters.js';
import { Discovered } from './ai-apps/discovered.js';
import { StatusDialog } from './ai-apps/status-dialog.js';

const LIMIT = 50;

/**
 * The AI platforms: the catalog with the tenant's statuses, their use over a period and those
 * first seen in it. The catalog and the usage are read whole (at most a few hundred rows each)
 * and joined, filtered and paged in the page.
 */
export function AiAppsPage() {
  const isAdmin = useIsAdmin();
  const [params, setParams] = useSearchParams();
  const [page, setPage] = usePageParam();
  const period = usePeriod(30);
  const [changing, setChanging] = useState<Platform | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const filters = filtersOf(params);

  const platforms = useQuery({ queryKey: ['platforms', 'list'], queryFn: () => api.GET('/api/v1/platforms') });
  const usage = useQuery({
    queryKey: ['platforms', 'usage', period.query],
    queryFn: () => api.GET('/api/v1/platforms/usage', { params: { query: period.query } }),
    placeholderData: keepPreviousData,
  });
  // The whole history's first sightings tell which platforms were new in the period.
  const allTime = useQuery({ queryKey: ['platforms', 'usage', {}], queryFn: () => api.GET('/api/v1/platforms/usage') });

  function setFilter(key: keyof Filters, value: string) {
    const next = new URLSearchParams(globalThis.location.search);
    next.delete('page');
    if (value) next.set(key, value);
    else next.delete(key);
    // Typing a search replaces the history entry rather than adding one per keystroke.
    setParams(next, { replace: key === 'q' });
  }

  const error = platforms.error ?? usage.error ?? allTime.error;
  const range = { start: period.start, ...(period.end ? { end: period.end } : {}) };
  const ready = platforms.data && usage.data && allTime.data;
  const apps = ready ? joinApps(platforms.data.platforms, usage.data.platforms, filters) : [];
  const filtered = Object.values(filters).some(Boolean);

  return (
    <>
      <PageHeader title="AI apps" actions={<DateRange start={period.start} end={period.end} onChange={period.set} />}>
        The AI platforms your staff may use: what the vendors say about them, how much each was used in the period, and what
        your organization decided about each.
      </PageHeader>
      {notice && <SuccessBanner>{notice}</SuccessBanner>}
      {error ? <ErrorBanner error={error} /> : !ready ? <Loading /> : (
        <div aria-busy={usage.isPlaceholderData}>
          <Discovered
            apps={discoveredApps(platforms.data.platforms, usage.data.platforms, allTime.data.platforms, period.start, period.end)}
            range={range}
          />
          <section aria-labelledby="catalog-heading">
            <h2 id="catalog-heading">Catalog and usage</h2>
            {!isAdmin && <p className="muted">Statuses are decided by your organization’s admins.</p>}
            <CatalogFilters filters={filters} onChange={setFilter} />
            {apps.length === 0 ? (
              <Empty>{filtered ? 'No AI app matches these filters.' : 'The catalog is empty.'}</Empty>
            ) : (
              <>
                <AppsTable apps={apps.slice((page - 1) * LIMIT, page * LIMIT)} range={range} onChange={isAdmin ? setChanging : undefined} />
                <Pager page={page} limit={LIMIT} total={apps.length} onPage={setPage} />
              </>
            )}
          </section>
        </div>
      )}
      {isAdmin && (
        <StatusDialog
          platform={changing}
          onClose={() => setChanging(null)}
          onSaved={(saved) => {
            setChanging(null);
            setNotice(`${displayName(saved)} is now ${label(STATUSES, saved.status).toLowerCase()}.`);
          }}
        />
      )}
    </>
  );
}
