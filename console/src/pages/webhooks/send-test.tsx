import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { Badge, ErrorBanner, Field, formatDate } from '../../components/ui.js';
import { useEventTypes } from './event-types.js';
import type { EventType } from './types.js';

/** Sends a sample event of the chosen type now and shows how the receiver answered. */
export function SendTest({ webhookId, subscribed }: { webhookId: string; subscribed: string[] }) {
  const queryClient = useQueryClient();
  const catalog = useEventTypes();
  const [chosen, setChosen] = useState<EventType | ''>('');
  const types = catalog.data?.event_types.map((event) => event.type) ?? [];
  const eventType = chosen || (types.find((type) => subscribed.includes(type)) ?? types[0] ?? '');

  const test = useMutation({
    mutationFn: (type: EventType) => api.POST('/api/v1/webhooks/{webhook_id}/test', { params: { path: { webhook_id: webhookId } }, body: { event_type: type } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook', webhookId] }),
  });
  const result = test.data;

  function send(event: FormEvent) {
    event.preventDefault();
    if (eventType) test.mutate(eventType);
  }

  return (
    <section className="card" aria-labelledby="send-test-title">
      <h2 id="send-test-title">Send a test</h2>
      {catalog.error !== null && <ErrorBanner error={catalog.error} />}
      <form className="filters" onSubmit={send}>
        <Field label="Event type">
          <select value={eventType} onChange={(e) => setChosen(e.target.value as EventType)}>
            {types.map((type) => <option key={type} value={type}>{type}</option>)}
          </select>
        </Field>
        <button type="submit" className="button" disabled={test.isPending || !eventType}>{test.isPending ? 'Sending…' : 'Send test'}</button>
      </form>
      {test.error && <ErrorBanner error={test.error} />}
      {result && (
        <div role="status" aria-label="Test result">
          <p>
            {result.delivered ? <Badge tone="good">Delivered</Badge> : <Badge tone="bad">Not delivered</Badge>}{' '}
            {result.status_code > 0 ? `HTTP ${result.status_code}` : 'No answer'} in {result.response_time_ms} ms, {formatDate(result.timestamp)}
          </p>
          {result.error && <p className="muted">{result.error}</p>}
        </div>
      )}
    </section>
  );
}
