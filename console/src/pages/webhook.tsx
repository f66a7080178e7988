import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../api/client.js';
import { useIsAdmin } from '../api/use-session.js';
import { Dialog } from '../components/dialog.js';
import { Badge, formatDate, formatNumber, PageHeader, QueryState, SuccessBanner } from '../components/ui.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Deliveries } from './webhooks/deliveries.js';
import { RotateSecretDialog } from './webhooks/rotate-secret-dialog.js';
import { SendTest } from './webhooks/send-test.js';
import { formatLabel } from './webhooks/formats.js';
import type { Webhook } from './webhooks/types.js';
import { WebhookForm } from './webhooks/webhook-form.js';

type Open = 'edit' | 'rotate' | 'delete' | null;

export function WebhookPage() {
  const { webhookId = '' } = useParams();
  const isAdmin = useIsAdmin();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<Open>(null);
  const [saved, setSaved] = useState(false);
  const webhook = useQuery({
    queryKey: ['webhook', webhookId],
    queryFn: () => api.GET('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } } }),
    refetchInterval: 5000,
  });
  const path = { params: { path: { webhook_id: webhookId } } };

  return (
    <>
      <p><Link to="/webhooks">← Webhooks</Link></p>
      <QueryState query={webhook}>
        {(data) => (
          <>
            <PageHeader
              title={data.description || 'Webhook'}
              actions={isAdmin && (
                <>
                  <button type="button" className="button secondary" onClick={() => { setSaved(false); setOpen('edit'); }}>Edit</button>
                  <button type="button" className="button secondary" onClick={() => setOpen('rotate')}>Rotate secret</button>
                  <button type="button" className="button danger" onClick={() => setOpen('delete')}>Delete</button>
                </>
              )}
            >
              <code>{data.url}</code>
            </PageHeader>
            {saved && <SuccessBanner>Webhook saved.</SuccessBanner>}
            <WebhookDetails webhook={data} />
            {isAdmin && <SendTest webhookId={webhookId} subscribed={data.events} />}
            <Deliveries webhookId={webhookId} canRedeliver={isAdmin} />
            {isAdmin && (
              <>
                <Dialog title="Edit the webhook" open={open === 'edit'} onClose={() => setOpen(null)}>
                  <WebhookForm
                    webhook={data}
                    submitLabel="Save"
                    onCancel={() => setOpen(null)}
                    onSubmit={async (body) => {
                      const updated = await api.PUT('/api/v1/webhooks/{webhook_id}', { ...path, body });
                      queryClient.setQueryData(['webhook', webhookId], updated);
                      await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
                      setSaved(true);
                      setOpen(null);
                    }}
                  />
                </Dialog>
                <RotateSecretDialog webhookId={webhookId} open={open === 'rotate'} onClose={() => setOpen(null)} />
                <ConfirmDialog
                  title="Delete the webhook"
                  confirmLabel="Delete"
                  open={open === 'delete'}
                  onClose={() => setOpen(null)}
                  onConfirm={async () => {
                    await api.DELETE('/api/v1/webhooks/{webhook_id}', path);
                    queryClient.removeQueries({ queryKey: ['webhook', webhookId] });
                    await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
                    navigate('/webhooks', { replace: true });
                  }}
                >
                  <p>Delete the webhook to <code>{data.url}</code>? Its queued events are dropped and its history is removed.</p>
                </ConfirmDialog>
              </>
            )}
          </>
        )}
      </QueryState>
    </>
  );
}

function WebhookDetails({ webhook }: { webhook: Webhook }) {
  const headers = Object.entries(webhook.headers);
  return (
    <section className="card" aria-label="Webhook details">
      <dl className="details">
        <dt>Status</dt>
        <dd>{webhook.active ? <Badge tone="good">Active</Badge> : <Badge tone="bad">Inactive</Badge>}</dd>
        <dt>Id</dt>
        <dd><code>{webhook.id}</code></dd>
        <dt>Format</dt>
        <dd>{formatLabel(webhook.format)}</dd>
        <dt>Events</dt>
        <dd>{webhook.events.map((event) => <span key={event}><Badge tone="info">{event}</Badge> </span>)}</dd>
        <dt>Custom headers</dt>
        <dd>{headers.length === 0 ? <span className="muted">none</span> : headers.map(([name, value]) => <div key={name}><code>{name}: {value}</code></div>)}</dd>
        <dt>Auth token</dt>
        <dd>{webhook.has_auth_token ? 'Set (sent as Authorization: Bearer)' : <span className="muted">none</span>}</dd>
        <dt>Queued</dt>
        <dd>{formatNumber(webhook.queued)}{webhook.oldest_queued_at && <span className="muted"> (oldest since {formatDate(webhook.oldest_queued_at)})</span>}</dd>
        <dt>Attempts</dt>
        <dd>{formatNumber(webhook.delivery_count)}</dd>
        <dt>Last delivery</dt>
        <dd>{formatDate(webhook.last_delivery)}</dd>
        <dt>Created</dt>
        <dd>{formatDate(webhook.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{formatDate(webhook.updated_at)}</dd>
      </dl>
    </section>
  );
}
