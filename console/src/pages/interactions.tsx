import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { api } from '../api/client.js';
import { CursorPager, useCursorPaging } from '../components/cursor-pager.js';
import { Empty, ErrorBanner, Field, Loading, PageHeader, SuccessBanner } from '../components/ui.js';
import { ExportButton } from '../components/export-button.js';
import { FilterForm } from './interactions/filter-form.js';
import {
  DEFAULT_LIMIT, exportQuery, FILTER_KEYS, filterValues, hasFilters, listQuery, PAGE_SIZES, pageSize, SORTS, type FilterValues,
} from './interactions/filters.js';
import { FingerprintChip } from './interactions/fingerprint-chip.js';
import { HashSearch } from './interactions/hash-search.js';
import { InteractionsTable } from './interactions/interactions-table.js';
import { ValueLookup } from './interactions/value-lookup.js';

export function InteractionsPage() {
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const paging = useCursorPaging();
  const [exportError, setExportError] = useState<unknown>(null);
  const query = listQuery(params);
  const list = useQuery({
    queryKey: ['interactions', 'list', query],
    queryFn: () => api.GET('/api/v1/interactions', { params: { query } }),
    placeholderData: keepPreviousData,
  });
  const notice = (location.state as { notice?: unknown } | null)?.notice;

  /**
   * New URL params from the address bar's (fresher than `params` when two changes come before a
   * render): the cursor always goes, as it belongs to the old filters.
   */
  function navigateWith(change: (next: URLSearchParams) => void) {
    const next = new URLSearchParams(globalThis.location.search);
    next.delete('cursor');
    change(next);
    setParams(next);
  }

  function applyFilters(values: FilterValues) {
    navigateWith((next) => {
      for (const key of FILTER_KEYS) {
        const value = values[key].trim();
        if (value) next.set(key, value);
        else next.delete(key);
      }
    });
  }

  const setOption = (key: 'sort' | 'limit', value: string) =>
    navigateWith((next) => (value ? next.set(key, value) : next.delete(key)));

  const limit = pageSize(params);
  const sizes = PAGE_SIZES.includes(limit) ? PAGE_SIZES : [...PAGE_SIZES, limit].sort((a, b) => a - b);
  const filterKey = FILTER_KEYS.map((key) => params.get(key) ?? '').join('\u0000');
  const fingerprint = params.get('fingerprint');

  return (
    <>
      <PageHeader
        title="Interactions"
        actions={<ExportButton path="/api/v1/interactions/export" query={exportQuery(params)} fallbackName="interactions.csv" onError={setExportError} />}
      >
        What was sent to AI tools: hashes and risk signals, never the content.
      </PageHeader>
      {typeof notice === 'string' && <SuccessBanner>{notice}</SuccessBanner>}
      {exportError !== null && <ErrorBanner error={exportError} />}
      <HashSearch />
      <ValueLookup />
      <FilterForm
        key={filterKey}
        initial={filterValues(params)}
        onApply={applyFilters}
        onClear={hasFilters(params) ? () => navigateWith((next) => FILTER_KEYS.forEach((key) => next.delete(key))) : undefined}
      />
      {fingerprint && <FingerprintChip fingerprint={fingerprint} onRemove={() => navigateWith((next) => next.delete('fingerprint'))} />}
      <div className="filters">
        <Field label="Sort">
          <select value={params.get('sort') ?? '-timestamp'} onChange={(e) => setOption('sort', e.target.value === '-timestamp' ? '' : e.target.value)}>
            {SORTS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </Field>
        <Field label="Rows per page">
          <select value={limit} onChange={(e) => setOption('limit', Number(e.target.value) === DEFAULT_LIMIT ? '' : e.target.value)}>
            {sizes.map((size) => <option key={size} value={size}>{size}</option>)}
          </select>
        </Field>
      </div>
      {list.error ? (
        <ErrorBanner error={list.error} />
      ) : !list.data ? (
        <Loading />
      ) : list.data.data.length === 0 && !paging.cursor ? (
        <Empty>{hasFilters(params) ? 'No interactions match these filters.' : 'No interactions recorded yet.'}</Empty>
      ) : (
        <div aria-busy={list.isPlaceholderData}>
          <InteractionsTable
            rows={list.data.data}
            userLink={(userId) => `/interactions?${new URLSearchParams({ user_id: userId }).toString()}`}
          />
          <CursorPager
            paging={paging}
            offset={list.data.offset}
            count={list.data.data.length}
            total={list.data.total}
            nextCursor={list.data.next_cursor}
          />
        </div>
      )}
    </>
  );
}
