import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, isApiError } from '../api/client.js';
import { DateRange } from '../components/date-range.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorBanner, Loading, PageHeader } from '../components/ui.js';
import { usePeriod } from '../lib/period.js';
import { usePageParam } from '../lib/url-state.js';
import { PeopleTable } from './people-at-risk/people-table.js';
import { ScoreExplained } from './people-at-risk/score-explained.js';

const LIMIT = 50;

/** The user ids ranked by risk over a period, the last week by default. */
export function PeopleAtRiskPage() {
  const period = usePeriod(7);
  const [page, setPage] = usePageParam();
  const ranking = useQuery({
    queryKey: ['people-risk', period.query, page],
    queryFn: () => api.GET('/api/v1/people/risk', { params: { query: { ...period.query, page, limit: LIMIT } } }),
    placeholderData: keepPreviousData,
  });
  const range = { start: period.start, ...(period.end ? { end: period.end } : {}) };

  return (
    <>
      <PageHeader title="People at risk" actions={<DateRange start={period.start} end={period.end} onChange={period.set} />}>
        Who sends the riskiest data to AI apps, by user id, with the figures behind each score. A user id opens that person’s
        interactions of the period.
      </PageHeader>
      {ranking.error ? (
        <>
          <ErrorBanner error={ranking.error} />
          {isApiError(ranking.error, 'validation_error') && <p className="muted">Change the period with From and To: a shorter one holds fewer interactions.</p>}
        </>
      ) : !ranking.data ? (
        <Loading />
      ) : ranking.data.people.length === 0 && ranking.data.total === 0 ? (
        <Empty>
          No one at risk in this period: no high-risk interaction, policy violation, sensitive data or unsanctioned app by any
          user id.
        </Empty>
      ) : (
        <div aria-busy={ranking.isPlaceholderData}>
          <PeopleTable people={ranking.data.people} firstRank={(page - 1) * LIMIT + 1} range={range} />
          <Pager page={page} limit={LIMIT} total={ranking.data.total} onPage={setPage} />
        </div>
      )}
      <ScoreExplained />
    </>
  );
}
