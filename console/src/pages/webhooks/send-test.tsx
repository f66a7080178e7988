import type { components } from '@sdk/generated/openapi.js';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { Badge, ErrorBanner, Field, formatDate } from '../../components/ui.js';
import { useEventTypes } from './event-types.js';
import type { EventType } from './types.js';

type TestResult = components['schemas']['WebhookTestResult'];

/** Sends a sample event of the chosen type now and shows how the receiver answered. */
export function SendTest({ webhookId, subscribed }: { webhookId: string; subscribed: string[] }) {
  const queryClient = useQueryClient();
  const catalog = useEventTypes();
  const [chosen, setChosen] = useState<EventType | ''>('');
  const [result, setResult] = useState<TestResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const types = catalog.data?.event_types.map((event) => event.type) ?? [];
  const eventType = chosen || (types.find((type) => subscribed.includes(type)) ?? types[0] ?? '');

  async function send(event: FormEvent) {
    event.preventDefault();
    if (!eventType) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await api.POST('/api/v1/webhooks/{webhook_id}/test', { params: { path: { webhook_id: webhookId } }, body: { event_type: eventType } }));
      await queryClient.invalidateQueries({ queryKey: ['webhook', webhookId] });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
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
        <button type="submit" className="button" disabled={busy || !eventType}>{busy ? 'Sending…' : 'Send test'}</button>
      </form>
      {error !== null && <ErrorBanner error={error} />}
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
