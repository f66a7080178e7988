import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client.js';
import { SecretOnce } from '../../components/copy-button.js';
import { Dialog } from '../../components/dialog.js';
import type { WebhookWithSecret } from './types.js';
import { WebhookForm } from './webhook-form.js';

/** Registers a webhook, then shows its signing secret once: closing the dialog forgets it. */
export function RegisterWebhookDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);

  function close() {
    setCreated(null);
    onClose();
  }

  return (
    <Dialog title={created ? 'Webhook registered' : 'Register a webhook'} open={open} onClose={close}>
      {created ? (
        <>
          <SecretOnce label="Signing secret" value={created.signing_secret} />
          <p className="muted">Receivers verify each delivery's <code>webhook-signature</code> with it (Standard Webhooks).</p>
          <div className="actions" style={{ justifyContent: 'flex-end' }}>
            <Link className="button secondary" to={`/webhooks/${created.id}`}>Open the webhook</Link>
            <button type="button" className="button" onClick={close}>Done</button>
          </div>
        </>
      ) : (
        <WebhookForm
          submitLabel="Register"
          onCancel={close}
          onSubmit={async (body) => {
            const webhook = await api.POST('/api/v1/webhooks', { body });
            await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
            setCreated(webhook);
          }}
        />
      )}
    </Dialog>
  );
}
