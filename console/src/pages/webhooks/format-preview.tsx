import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.js';
import { ErrorBanner } from '../../components/ui.js';
import type { WebhookFormat } from './formats.js';
import type { EventType } from './types.js';

/** The body a receiver of `format` gets for a sample event, as the service renders it (nothing is sent). */
export function FormatPreview({ format, eventType }: { format: WebhookFormat; eventType: EventType }) {
  const sample = useQuery({
    queryKey: ['webhook-format-sample', format, eventType],
    queryFn: () => api.GET('/api/v1/webhooks/formats/{format}/sample', { params: { path: { format }, query: { event_type: eventType } } }),
    staleTime: Infinity,
  });
  return (
    <div className="field">
      <span className="muted">Sample body ({eventType})</span>
      {sample.error !== null && <ErrorBanner error={sample.error} />}
      <pre aria-label="Sample body" className="mono" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', maxHeight: 240, overflow: 'auto', margin: '4px 0' }}>
        {sample.data?.body ?? 'Loading…'}
      </pre>
    </div>
  );
}
