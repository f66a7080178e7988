import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client.js';
import { Dialog } from '../../components/dialog.js';
import { Badge, ErrorBanner, formatDate } from '../../components/ui.js';
import { actionTone, conditionsSummary, severityTone, type Policy } from './policy-fields.js';

/** The policies of one page; admins get edit, enable/disable and delete on each row. */
export function PolicyTable({ policies, isAdmin, editLink, onNotice }: {
  policies: Policy[];
  isAdmin: boolean;
  editLink: (id: string) => string;
  onNotice: (message: string | null, error?: unknown) => void;
}) {
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<Policy | null>(null);
  const toggle = useMutation({
    mutationFn: (policy: Policy) => api.POST(
      policy.enabled ? '/api/v1/policies/{policy_id}/disable' : '/api/v1/policies/{policy_id}/enable',
      { params: { path: { policy_id: policy.id } } },
    ),
    onSuccess: (saved) => onNotice(`Policy “${saved.name}” ${saved.enabled ? 'enabled' : 'disabled'}.`),
    onError: (error) => onNotice(null, error),
    // Returned, so the buttons stay busy until the list shows the new state.
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['policies'] }),
  });
  const remove = useMutation({
    mutationFn: (policy: Policy) => api.DELETE('/api/v1/policies/{policy_id}', { params: { path: { policy_id: policy.id } } }),
    onSuccess: async (_, policy) => {
      await queryClient.invalidateQueries({ queryKey: ['policies'] });
      setDeleting(null);
      onNotice(`Policy “${policy.name}” deleted.`);
    },
  });

  return (
    <>
      <table className="data">
        <thead>
          <tr>
            <th>Name</th><th>Action</th><th>Severity</th><th>Status</th><th>Conditions</th><th>Updated</th>
            {isAdmin && <th><span className="muted">Actions</span></th>}
          </tr>
        </thead>
        <tbody>
          {policies.map((policy) => (
            <tr key={policy.id}>
              <td>
                <strong>{policy.name}</strong>
                {policy.description && <div className="muted">{policy.description}</div>}
              </td>
              <td><Badge tone={actionTone(policy.action)}>{policy.action}</Badge></td>
              <td><Badge tone={severityTone(policy.severity)}>{policy.severity}</Badge></td>
              <td>{policy.enabled ? <Badge tone="good">enabled</Badge> : <Badge>disabled</Badge>}</td>
              <td>{conditionsSummary(policy.conditions).map((line) => <div key={line}>{line}</div>)}</td>
              <td>{formatDate(policy.updated_at)}</td>
              {isAdmin && (
                <td>
                  <div className="actions" style={{ flexWrap: 'nowrap' }}>
                    <Link className="button secondary" style={{ textDecoration: 'none' }} to={editLink(policy.id)} aria-label={`Edit ${policy.name}`}>Edit</Link>
                    <button type="button" className="button secondary" disabled={toggle.isPending}
                      aria-label={`${policy.enabled ? 'Disable' : 'Enable'} ${policy.name}`} onClick={() => toggle.mutate(policy)}>
                      {policy.enabled ? 'Disable' : 'Enable'}
                    </button>
                    <button type="button" className="button danger" aria-label={`Delete ${policy.name}`} onClick={() => {
                      remove.reset();
                      setDeleting(policy);
                    }}>Delete</button>
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <Dialog title="Delete policy" open={deleting !== null} onClose={() => setDeleting(null)}>
        {deleting && (
          <>
            {remove.error && <ErrorBanner error={remove.error} />}
            <p>
              Delete the policy <strong>{deleting.name}</strong>? It stops judging new interactions at once.
              The alerts it raised stay. This cannot be undone.
            </p>
            <div className="actions">
              <button type="button" className="button danger" disabled={remove.isPending} onClick={() => remove.mutate(deleting)}>
                {remove.isPending ? 'Deleting…' : 'Delete policy'}
              </button>
              <button type="button" className="button secondary" onClick={() => setDeleting(null)}>Cancel</button>
            </div>
          </>
        )}
      </Dialog>
    </>
  );
}
