import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api/client.js';
import { DateRange } from '../components/date-range.js';
import { PageHeader, QueryState } from '../components/ui.js';
import { defaultStart } from '../lib/period.js';
import { OverviewCharts } from './overview/overview-charts.js';

const DAY_MS = 24 * 60 * 60 * 1000;
type Interval = 'hour' | 'day';

/** Hours for a range of up to 3 days, days beyond. */
function intervalFor(start: string, end: string | undefined): Interval {
  const span = (end ? Date.parse(end) : Date.now()) - Date.parse(start);
  return span <= 3 * DAY_MS ? 'hour' : 'day';
}

export function OverviewPage() {
  const [params, setParams] = useSearchParams();
  const start = params.get('start_date') ?? defaultStart(30);
  const end = params.get('end_date') ?? undefined;
  const interval = (params.get('interval') as Interval | null) ?? intervalFor(start, end);
  const range = { start, ...(end ? { end } : {}) };

  const stats = useQuery({
    queryKey: ['stats', start, end, interval],
    queryFn: () => api.GET('/api/v1/stats', { params: { query: { start_date: start, ...(end ? { end_date: end } : {}), interval } } }),
  });

  function setRange(nextStart?: string, nextEnd?: string) {
    const next = new URLSearchParams();
    if (nextStart) next.set('start_date', nextStart);
    if (nextEnd) next.set('end_date', nextEnd);
    setParams(next);
  }

  return (
    <>
      <PageHeader title="Overview" actions={<DateRange start={start} end={end} onChange={setRange} />}>
        What your staff send to AI platforms, and how risky it is. Every chart opens the list behind it.
      </PageHeader>
      <QueryState query={stats}>
        {(data) => (data.interactions.total === 0 && data.alerts.open === 0
          ? (
            <p className="empty">
              No interactions in this period. Browser extensions, proxies and agents report them through the API:
              see <Link to="/interactions">Interactions</Link> or widen the dates.
            </p>
          )
          : <OverviewCharts stats={data} range={range} />)}
      </QueryState>
    </>
  );
}
