import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { components, operations } from '@sdk/generated/openapi.js';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api/client.js';
import { useIsAdmin } from '../api/use-session.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorBanner, Field, Loading, PageHeader, SuccessBanner } from '../components/ui.js';
import { AlertsTable } from './alerts/alerts-table.js';
import { ResolveAlertDialog } from './alerts/resolve-alert.js';

type Alert = components['schemas']['Alert'];
type AlertsQuery = NonNullable<operations['listAlerts']['parameters']['query']>;

const STATUSES = [['open', 'Open'], ['resolved', 'Resolved']] as const;
const SEVERITIES = [['low', 'Low'], ['medium', 'Medium'], ['high', 'High'], ['critical', 'Critical']] as const;
const LIMIT = 50;

/** The API query of the page's URL: `status`, `severity`, `interaction_id`, `page`, `limit`. */
function alertsQuery(params: URLSearchParams): AlertsQuery {
  return {
    status: (params.get('status') || undefined) as AlertsQuery['status'],
    severity: (params.get('severity') || undefined) as AlertsQuery['severity'],
    interaction_id: params.get('interaction_id') || undefined,
    page: Number(params.get('page') || 1),
    limit: Number(params.get('limit') || LIMIT),
  };
}

export function AlertsPage() {
  const [params, setParams] = useSearchParams();
  const isAdmin = useIsAdmin();
  const [resolving, setResolving] = useState<Alert | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const query = alertsQuery(params);
  const alerts = useQuery({
    queryKey: ['alerts', query],
    queryFn: () => api.GET('/api/v1/alerts', { params: { query } }),
    placeholderData: keepPreviousData,
  });

  /**
   * A filter change starts again at page 1. It starts from the address bar, not from `params`: two
   * quick changes would otherwise both start from the render before the first.
   */
  function setParam(key: string, value: string) {
    const next = new URLSearchParams(globalThis.location.search);
    if (key !== 'page') next.delete('page');
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
    setNotice(null);
  }

  const filtered = Boolean(query.status || query.severity || query.interaction_id);

  return (
    <>
      <PageHeader title="Alerts">Raised when an interaction matches a block or coach policy; open until an administrator resolves it.</PageHeader>
      {notice && <SuccessBanner>{notice}</SuccessBanner>}
      <div className="filters" role="search" aria-label="Filter alerts">
        <Field label="Status">
          <select value={query.status ?? ''} onChange={(e) => setParam('status', e.target.value)}>
            <option value="">Any</option>
            {STATUSES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </Field>
        <Field label="Severity">
          <select value={query.severity ?? ''} onChange={(e) => setParam('severity', e.target.value)}>
            <option value="">Any</option>
            {SEVERITIES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </Field>
        {query.interaction_id && (
          <p style={{ margin: 0 }}>
            Alerts of <Link to={`/interactions/${query.interaction_id}`}>one interaction</Link>{' '}
            <button type="button" className="button link" onClick={() => setParam('interaction_id', '')}>Show all alerts</button>
          </p>
        )}
      </div>
      {alerts.error ? (
        <ErrorBanner error={alerts.error} />
      ) : !alerts.data ? (
        <Loading />
      ) : alerts.data.alerts.length === 0 && alerts.data.total === 0 ? (
        <Empty>{filtered ? 'No alerts match these filters.' : 'No alerts yet: no interaction has matched a block or coach policy.'}</Empty>
      ) : (
        <div aria-busy={alerts.isPlaceholderData}>
          <AlertsTable alerts={alerts.data.alerts} onResolve={isAdmin ? setResolving : undefined} />
          <Pager page={query.page ?? 1} limit={query.limit ?? LIMIT} total={alerts.data.total} onPage={(page) => setParam('page', String(page))} />
        </div>
      )}
      {isAdmin && (
        <ResolveAlertDialog
          alert={resolving}
          onClose={() => setResolving(null)}
          onResolved={(alert) => {
            setResolving(null);
            setNotice(`The alert of the policy “${alert.policy_name}” is resolved.`);
          }}
        />
      )}
    </>
  );
}
