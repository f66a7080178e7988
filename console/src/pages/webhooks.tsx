import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api/client.js';
import { useIsAdmin } from '../api/use-session.js';
import { Pager } from '../components/pager.js';
import { Badge, Empty, Field, formatDate, formatNumber, PageHeader, QueryState } from '../components/ui.js';
import { usePageParam } from '../lib/url-state.js';
import { formatLabel } from './webhooks/formats.js';
import { RegisterWebhookDialog } from './webhooks/register-dialog.js';

const LIMIT = 25;

export function WebhooksPage() {
  const isAdmin = useIsAdmin();
  const [params, setParams] = useSearchParams();
  const [page, setPage] = usePageParam();
  const [registering, setRegistering] = useState(false);
  const activeParam = params.get('active');
  const active = activeParam === 'true' ? true : activeParam === 'false' ? false : undefined;

  const webhooks = useQuery({
    queryKey: ['webhooks', { page, active }],
    queryFn: () => api.GET('/api/v1/webhooks', { params: { query: { page, limit: LIMIT, active } } }),
  });

  function filterActive(value: string) {
    const next = new URLSearchParams(params);
    next.delete('page');
    if (value) next.set('active', value);
    else next.delete('active');
    setParams(next);
  }

  return (
    <>
      <PageHeader
        title="Webhooks"
        actions={isAdmin && <button type="button" className="button" onClick={() => setRegistering(true)}>Register a webhook</button>}
      >
        Signed event notifications sent to your systems (SIEM, ticketing, chat).
      </PageHeader>
      <div className="filters">
        <Field label="Status">
          <select value={activeParam ?? ''} onChange={(e) => filterActive(e.target.value)}>
            <option value="">Any</option>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
          </select>
        </Field>
      </div>
      <QueryState query={webhooks}>
        {(data) => data.webhooks.length === 0 ? <Empty>No webhooks{active === undefined ? ' yet' : ' with this status'}.</Empty> : (
          <>
            <table className="data">
              <thead>
                <tr>
                  <th>URL</th>
                  <th>Description</th>
                  <th>Format</th>
                  <th>Events</th>
                  <th>Status</th>
                  <th className="num">Queued</th>
                  <th>Oldest queued</th>
                  <th>Last delivery</th>
                </tr>
              </thead>
              <tbody>
                {data.webhooks.map((webhook) => (
                  <tr key={webhook.id}>
                    <td><Link to={`/webhooks/${webhook.id}`}><code>{webhook.url}</code></Link></td>
                    <td>{webhook.description || <span className="muted">—</span>}</td>
                    <td>{formatLabel(webhook.format)}</td>
                    <td>{webhook.events.join(', ')}</td>
                    <td>{webhook.active ? <Badge tone="good">Active</Badge> : <Badge tone="bad">Inactive</Badge>}</td>
                    <td className="num">{formatNumber(webhook.queued)}</td>
                    <td>{formatDate(webhook.oldest_queued_at)}</td>
                    <td>{formatDate(webhook.last_delivery)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} limit={LIMIT} total={data.total} onPage={setPage} />
          </>
        )}
      </QueryState>
      {isAdmin && <RegisterWebhookDialog open={registering} onClose={() => setRegistering(false)} />}
    </>
  );
}
