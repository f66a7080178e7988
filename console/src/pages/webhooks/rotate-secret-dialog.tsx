import type { components } from '@sdk/generated/openapi.js';
import { useState } from 'react';
import { api } from '../../api/client.js';
import { SecretOnce } from '../../components/copy-button.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner, formatDate } from '../../components/ui.js';

type WebhookSecret = components['schemas']['WebhookSecret'];

/** Asks, rotates the signing secret, then shows the new one once: closing the dialog forgets it. */
export function RotateSecretDialog({ webhookId, open, onClose }: { webhookId: string; open: boolean; onClose: () => void }) {
  const [secret, setSecret] = useState<WebhookSecret | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  function close() {
    setSecret(null);
    setError(null);
    onClose();
  }

  async function rotate() {
    setBusy(true);
    setError(null);
    try {
      setSecret(await api.POST('/api/v1/webhooks/{webhook_id}/rotate-secret', { params: { path: { webhook_id: webhookId } } }));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title={secret ? 'New signing secret' : 'Rotate the signing secret'} open={open} onClose={close}>
      {error !== null && <ErrorBanner error={error} />}
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
            <button type="button" className="button danger" disabled={busy} onClick={rotate}>Rotate secret</button>
          </div>
        </>
      )}
    </Dialog>
  );
}
