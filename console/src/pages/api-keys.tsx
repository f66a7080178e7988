import type { components } from '@sdk/generated/openapi.js';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client.js';
import { useIsAdmin } from '../api/use-session.js';
import { Pager } from '../components/pager.js';
import { Badge, Empty, formatDate, PageHeader, QueryState, SuccessBanner } from '../components/ui.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { usePageParam } from '../lib/url-state.js';
import { CreateKeyDialog } from './api-keys/create-key-dialog.js';

type ApiKey = components['schemas']['ApiKey'];

const LIMIT = 25;

export function ApiKeysPage() {
  const isAdmin = useIsAdmin();
  const queryClient = useQueryClient();
  const [page, setPage] = usePageParam();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const keys = useQuery({
    queryKey: ['api-keys', page],
    queryFn: () => api.GET('/api/v1/api-keys', { params: { query: { page, limit: LIMIT } } }),
  });

  return (
    <>
      <PageHeader
        title="API keys"
        actions={isAdmin && <button type="button" className="button" onClick={() => { setNotice(null); setCreating(true); }}>Create an API key</button>}
      >
        Credentials of machine clients: proxies, browser extensions, endpoint agents. Keys do not expire; revoke those no longer used.
      </PageHeader>
      {notice && <SuccessBanner>{notice}</SuccessBanner>}
      <QueryState query={keys}>
        {(data) => data.api_keys.length === 0 ? <Empty>No active API keys.</Empty> : (
          <>
            <table className="data">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Prefix</th>
                  <th>Scopes</th>
                  <th>Created</th>
                  <th>Last used</th>
                  {isAdmin && <th><span className="muted">Action</span></th>}
                </tr>
              </thead>
              <tbody>
                {data.api_keys.map((key) => (
                  <tr key={key.id}>
                    <td>{key.name}</td>
                    <td><code>{key.key_prefix}…</code></td>
                    <td>{key.scopes.map((scope) => <span key={scope}><Badge tone="info">{scope}</Badge> </span>)}</td>
                    <td>{formatDate(key.created_at)}</td>
                    <td>{key.last_used_at ? formatDate(key.last_used_at) : <span className="muted">never</span>}</td>
                    {isAdmin && (
                      <td>
                        <button type="button" className="button secondary" aria-label={`Revoke ${key.name}`} onClick={() => { setNotice(null); setRevoking(key); }}>Revoke</button>
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
      {isAdmin && (
        <>
          <CreateKeyDialog open={creating} onClose={() => setCreating(false)} />
          <ConfirmDialog
            title="Revoke the API key"
            confirmLabel="Revoke"
            open={revoking !== null}
            onClose={() => setRevoking(null)}
            onConfirm={async () => {
              if (!revoking) return;
              await api.DELETE('/api/v1/api-keys/{key_id}', { params: { path: { key_id: revoking.id } } });
              setNotice(`API key “${revoking.name}” revoked.`);
              await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
            }}
          >
            <p>Revoke <strong>{revoking?.name}</strong> (<code>{revoking?.key_prefix}…</code>)? Clients using it are refused from now on.</p>
          </ConfirmDialog>
        </>
      )}
    </>
  );
}
