import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api/client.js';
import { useIsAdmin } from '../api/use-session.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorBanner, Field, PageHeader, QueryState, SuccessBanner } from '../components/ui.js';
import { PolicyEditor } from './policies/policy-editor.js';
import { ACTIONS, type Action } from './policies/policy-fields.js';
import { PolicyTable } from './policies/policy-table.js';

const LIMIT = 25;

/**
 * The policies list, filtered by action and status in the URL. Admins also create (`?new=1`) and
 * edit (`?edit=<id>`) here: the editor replaces the list, and the list's filters are kept.
 */
export function PoliciesPage() {
  const isAdmin = useIsAdmin();
  const [params, setParams] = useSearchParams();
  const [notice, setNotice] = useState<{ message: string | null; error?: unknown } | null>(null);
  const editing = params.get('edit');
  const creating = params.get('new') === '1';

  function withParams(change: Record<string, string | null>) {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(change)) {
      if (value === null || value === '') next.delete(key);
      else next.set(key, value);
    }
    return next;
  }
  const closeEditor = (message?: string) => {
    setNotice(message ? { message } : null);
    setParams(withParams({ edit: null, new: null }));
  };

  if (isAdmin && (creating || editing)) {
    return <PolicyEditor key={editing ?? 'new'} policyId={editing ?? undefined} onDone={closeEditor} onCancel={() => closeEditor()} />;
  }

  return (
    <>
      <PageHeader
        title="Policies"
        actions={isAdmin && <Link className="button" style={{ textDecoration: 'none' }} to={`?${withParams({ new: '1' }).toString()}`}>New policy</Link>}
      >
        Rules that judge every interaction recorded after them: when all of a policy's conditions match, its action applies.
      </PageHeader>
      {notice?.message && <SuccessBanner>{notice.message}</SuccessBanner>}
      {notice?.error !== undefined && <ErrorBanner error={notice.error} />}
      <PolicyList isAdmin={isAdmin} params={params} setParams={(change) => setParams(withParams(change))}
        editLink={(id) => `?${withParams({ edit: id }).toString()}`}
        onNotice={(message, error) => setNotice({ message, error })} />
    </>
  );
}

function PolicyList({ isAdmin, params, setParams, editLink, onNotice }: {
  isAdmin: boolean;
  params: URLSearchParams;
  setParams: (change: Record<string, string | null>) => void;
  editLink: (id: string) => string;
  onNotice: (message: string | null, error?: unknown) => void;
}) {
  const page = Math.max(1, Number(params.get('page')) || 1);
  const action = params.get('action') as Action | null;
  const enabled = params.get('enabled');
  const query = {
    page,
    limit: LIMIT,
    ...(action ? { action } : {}),
    ...(enabled === 'true' || enabled === 'false' ? { enabled: enabled === 'true' } : {}),
  };
  const policies = useQuery({
    queryKey: ['policies', query],
    queryFn: () => api.GET('/api/v1/policies', { params: { query } }),
  });
  const filtered = action !== null || enabled !== null;

  return (
    <>
      <div className="filters" role="search" aria-label="Filter policies">
        <Field label="Action">
          <select value={action ?? ''} onChange={(e) => setParams({ action: e.target.value, page: null })}>
            <option value="">Any action</option>
            {ACTIONS.map((a) => <option key={a.value} value={a.value}>{a.label}</option>)}
          </select>
        </Field>
        <Field label="Status">
          <select value={enabled ?? ''} onChange={(e) => setParams({ enabled: e.target.value, page: null })}>
            <option value="">Enabled or disabled</option>
            <option value="true">Enabled</option>
            <option value="false">Disabled</option>
          </select>
        </Field>
      </div>
      <QueryState query={policies}>
        {(data) => data.policies.length === 0 ? (
          <Empty>
            {filtered ? 'No policy matches these filters.' : 'No policy yet.'}
            {!filtered && isAdmin && ' Create one with “New policy”: it will judge every interaction recorded after it.'}
          </Empty>
        ) : (
          <>
            <PolicyTable policies={data.policies} isAdmin={isAdmin} editLink={editLink} onNotice={onNotice} />
            <Pager page={page} limit={LIMIT} total={data.total} onPage={(p) => setParams({ page: String(p) })} />
          </>
        )}
      </QueryState>
    </>
  );
}
