import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorBanner, Field } from '../../components/ui.js';
import { PLAIN_LABEL } from '../../components/plain-label.js';
import { EventCheckboxes } from './event-checkboxes.js';
import { HeadersEditor, headersToRows, rowsToHeaders } from './headers-editor.js';
import { FormatPreview } from './format-preview.js';
import { needsToken, WEBHOOK_FORMATS, type WebhookFormat } from './formats.js';
import type { EventType, Webhook, WebhookCreate, WebhookUpdate } from './types.js';

/**
 * Registers a webhook (no `webhook`) or edits one. The auth token is never read back: on edit an
 * empty field keeps the current one, and "Remove the auth token" clears it.
 */
export function WebhookForm({ webhook, submitLabel, onSubmit, onCancel }: {
  webhook?: Webhook;
  submitLabel: string;
  onSubmit: (body: WebhookCreate & WebhookUpdate) => Promise<void>;
  onCancel: () => void;
}) {
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [format, setFormat] = useState<WebhookFormat>(webhook?.format ?? 'standard');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [events, setEvents] = useState<EventType[]>((webhook?.events ?? []) as EventType[]);
  const [active, setActive] = useState(webhook?.active ?? true);
  const [headers, setHeaders] = useState(headersToRows(webhook?.headers ?? {}));
  const [authToken, setAuthToken] = useState('');
  const [removeAuthToken, setRemoveAuthToken] = useState(false);
  const save = useMutation({ mutationFn: onSubmit });
  const tokenRequired = needsToken(format);
  // A token is kept on edit when the field is left empty; a new webhook of such a format must be given one.
  const tokenMissing = tokenRequired && !webhook?.has_auth_token;

  function submit(event: FormEvent) {
    event.preventDefault();
    const body: WebhookCreate & WebhookUpdate = { url, format, description, events, headers: rowsToHeaders(headers) };
    if (webhook) body.active = active;
    if (removeAuthToken && !tokenRequired) body.auth_token = '';
    else if (authToken !== '') body.auth_token = authToken;
    save.mutate(body);
  }

  return (
    <form onSubmit={submit}>
      {save.error && <ErrorBanner error={save.error} />}
      <Field label="URL" hint="An https:// address that answers 2xx to each delivery">
        <input type="url" required value={url} placeholder="https://siem.example.com/hooks/ai-usage" onChange={(e) => setUrl(e.target.value)} />
      </Field>
      <Field label="Format" hint={WEBHOOK_FORMATS.find((f) => f.value === format)?.hint ?? ''}>
        <select value={format} onChange={(e) => setFormat(e.target.value as WebhookFormat)}>
          {WEBHOOK_FORMATS.map((f) => <option key={f.value} value={f.value}>{f.label}</option>)}
        </select>
      </Field>
      <FormatPreview format={format} eventType={events[0] ?? 'interaction.created'} />
      <Field label="Description">
        <input value={description} maxLength={1000} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <EventCheckboxes selected={events} onChange={setEvents} />
      {webhook && (
        <div className="field">
          <label className="checkbox" style={PLAIN_LABEL}>
            <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
            Active (deliver new events)
          </label>
        </div>
      )}
      <HeadersEditor rows={headers} onChange={setHeaders} />
      <Field
        label={tokenRequired ? 'HEC token' : 'Auth token (optional)'}
        hint={webhook?.has_auth_token ? 'A token is set; leave empty to keep it'
          : tokenRequired ? 'Required: sent as Authorization: Splunk <token>' : 'Sent as Authorization: Bearer <token>'}
      >
        <input type="password" autoComplete="off" value={authToken} required={tokenMissing} disabled={removeAuthToken && !tokenRequired} onChange={(e) => setAuthToken(e.target.value)} />
      </Field>
      {webhook?.has_auth_token && !tokenRequired && (
        <div className="field">
          <label className="checkbox" style={PLAIN_LABEL}>
            <input type="checkbox" checked={removeAuthToken} onChange={(e) => setRemoveAuthToken(e.target.checked)} />
            Remove the auth token
          </label>
        </div>
      )}
      <div className="actions" style={{ justifyContent: 'flex-end' }}>
        <button type="button" className="button secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" className="button" disabled={save.isPending}>{submitLabel}</button>
      </div>
    </form>
  );
}
