import { useMutation } from '@tanstack/react-query';
import { api } from '../../api/client.js';
import { SecretOnce } from '../../components/copy-button.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner, formatDate } from '../../components/ui.js';

/** Asks, rotates the signing secret, then shows the new one once: closing the dialog forgets it. */
export function RotateSecretDialog({ webhookId, open, onClose }: { webhookId: string; open: boolean; onClose: () => void }) {
  const rotation = useMutation({
    mutationFn: () => api.POST('/api/v1/webhooks/{webhook_id}/rotate-secret', { params: { path: { webhook_id: webhookId } } }),
  });
  const secret = rotation.data;

  function close() {
    rotation.reset();
    onClose();
  }

  return (
    <Dialog title={secret ? 'New signing secret' : 'Rotate the signing secret'} open={open} onClose={close}>
      {rotation.error && <ErrorBanner error={rotation.error} />}
      {secret ? (
        <>
          <SecretOnce label="New signing secret" value={secret.signing_secret} />
          <p className="muted">Until {formatDate(secret.previous_secret_expires_at)} each delivery is also signed with the previous secret, so receivers can switch without losing events.</p>
          <div className="actions" style={{ justifyContent: 'flex-end' }}>
            <button type="button" className="button" onClick={close}>Done</button>
          </div>
        </>
      ) : (
        <>
          <p>A new secret is made and shown once. The previous one keeps signing deliveries for a while, then stops.</p>
          <div className="actions" style={{ justifyContent: 'flex-end' }}>
            <button type="button" className="button secondary" onClick={close}>Cancel</button>
            <button type="button" className="button danger" disabled={rotation.isPending} onClick={() => rotation.mutate()}>Rotate secret</button>
          </div>
        </>
      )}
    </Dialog>
  );
}
