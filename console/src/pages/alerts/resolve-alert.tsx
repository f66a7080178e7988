import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { components } from '@sdk/generated/openapi.js';
import { api } from '../../api/client.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner, formatDate } from '../../components/ui.js';

type Alert = components['schemas']['Alert'];

/** The confirmation of an admin's resolve; every alert list is asked again afterwards. */
export function ResolveAlertDialog({ alert, onClose, onResolved }: { alert: Alert | null; onClose(): void; onResolved(alert: Alert): void }) {
  const queryClient = useQueryClient();
  const resolve = useMutation({
    mutationFn: (id: string) => api.POST('/api/v1/alerts/{alert_id}/resolve', { params: { path: { alert_id: id } } }),
    onSuccess: onResolved,
    // Resolved or not (another admin may have resolved it first: 409), the list shows the truth.
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['alerts'] }),
  });

  function close() {
    resolve.reset();
    onClose();
  }

  return (
    <Dialog title="Resolve this alert?" open={alert !== null} onClose={close}>
      {alert && (
        <>
          <p>
            The alert raised by the policy <strong>{alert.policy_name}</strong> on {formatDate(alert.created_at)} will be marked
            resolved, by you. This is recorded in the audit log.
          </p>
          {resolve.error && <ErrorBanner error={resolve.error} />}
          <div className="actions">
            <button type="button" className="button" disabled={resolve.isPending} onClick={() => resolve.mutate(alert.id)}>
              {resolve.isPending ? 'Resolving…' : 'Resolve alert'}
            </button>
            <button type="button" className="button secondary" onClick={close}>Cancel</button>
          </div>
        </>
      )}
    </Dialog>
  );
}
