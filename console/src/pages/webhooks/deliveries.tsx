import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.js';
import { Pager } from '../../components/pager.js';
import { Badge, Empty, ErrorBanner, formatDate, QueryState, SuccessBanner } from '../../components/ui.js';
import { usePageParam } from '../../lib/url-state.js';
import { formatLabel } from './formats.js';
import type { WebhookDelivery } from './types.js';

const LIMIT = 20;
/** Attempts follow each other within seconds: their times show the seconds. */
const attemptTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
/** Deliveries happen in the background: the history is read again while the page is open. */
const REFRESH_MS = 5000;

export function Deliveries({ webhookId, canRedeliver }: { webhookId: string; canRedeliver: boolean }) {
  const queryClient = useQueryClient();
  const [page, setPage] = usePageParam();
  const deliveries = useQuery({
    queryKey: ['webhook', webhookId, 'deliveries', page],
    queryFn: () => api.GET('/api/v1/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: webhookId }, query: { page, limit: LIMIT } } }),
    refetchInterval: REFRESH_MS,
  });

  const redelivery = useMutation({
    mutationFn: (delivery: WebhookDelivery) => api.POST('/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
      params: { path: { webhook_id: webhookId, delivery_id: delivery.id } },
    }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook', webhookId] }),
  });
  const queued = redelivery.data;

  return (
    <section className="card" aria-labelledby="deliveries-title">
      <div className="page-header">
        <h2 id="deliveries-title">Delivery history</h2>
        <button type="button" className="button secondary" onClick={() => deliveries.refetch()}>Refresh</button>
      </div>
      {queued && <SuccessBanner>Redelivery of {queued.event_type} queued at {formatDate(queued.queued_at)}; it appears here once attempted.</SuccessBanner>}
      {redelivery.error && <ErrorBanner error={redelivery.error} />}
      <QueryState query={deliveries}>
        {(data) => data.deliveries.length === 0 ? <Empty>No delivery attempts yet.</Empty> : (
          <>
            <table className="data" aria-label="Delivery history">
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Event</th>
                  <th>Format</th>
                  <th>Status</th>
                  <th className="num">Attempt</th>
                  <th className="num">Response</th>
                  <th className="num">Duration</th>
                  <th>Error</th>
                  {canRedeliver && <th><span className="muted">Action</span></th>}
                </tr>
              </thead>
              <tbody>
                {data.deliveries.map((delivery) => (
                  <tr key={delivery.id}>
                    <td>{attemptTime.format(new Date(delivery.timestamp))}</td>
                    <td>
                      <code>{delivery.event_type}</code> {delivery.test && <Badge tone="info">Test</Badge>}
                      <div className="muted"><small>Event <code>{delivery.event_id}</code></small></div>
                    </td>
                    <td>{formatLabel(delivery.format)}</td>
                    <td>{delivery.success ? <Badge tone="good">Delivered</Badge> : <Badge tone="bad">Failed</Badge>}</td>
                    <td className="num">{delivery.attempt}</td>
                    <td className="num">{delivery.status_code > 0 ? delivery.status_code : <span className="muted">none</span>}</td>
                    <td className="num">{delivery.response_time_ms} ms</td>
                    <td>{delivery.error ?? <span className="muted">—</span>}</td>
                    {canRedeliver && (
                      <td>
                        {/* A test cannot be redelivered (the API refuses it): send another test instead. */}
                        {!delivery.test && (
                          <button type="button" className="button secondary" aria-label={`Redeliver ${delivery.event_type} of ${formatDate(delivery.timestamp)}`} onClick={() => redelivery.mutate(delivery)}>
                            Redeliver
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} limit={LIMIT} total={data.total} onPage={setPage} />
          </>
        )}
      </QueryState>
    </section>
  );
}
