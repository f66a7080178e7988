import { useMutation } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { ErrorBanner, Field } from '../../components/ui.js';
import { KNOWN_CLASSIFICATION_TYPES } from './filters.js';
import { SightingsSummary } from './sightings-summary.js';

/**
 * Finds where a value (a card number, an email...) was seen, by POST /signals/lookup. The value
 * lives in this form's state and the request's body only: never in the URL, storage or a log,
 * and the browser is asked not to remember it (autocomplete off).
 */
export function ValueLookup() {
  const typesId = useId();
  const [type, setType] = useState('');
  const [value, setValue] = useState('');
  const lookup = useMutation({
    mutationFn: (body: { type: string; value: string }) => api.POST('/api/v1/signals/lookup', { body }),
  });

  // A result shown beside a value it was not asked for would mislead.
  const edit = (set: (text: string) => void) => (event: { target: { value: string } }) => {
    set(event.target.value);
    lookup.reset();
  };

  function submit(event: FormEvent) {
    event.preventDefault();
    lookup.mutate({ type: type.trim(), value });
  }

  return (
    <div className="card">
      <form role="search" aria-label="Find a detected value" className="filters" onSubmit={submit} autoComplete="off">
        <Field label="Value type">
          <input value={type} onChange={edit(setType)} list={typesId} required placeholder="e.g. CREDIT_CARD" size={16} />
        </Field>
        <datalist id={typesId}>
          {KNOWN_CLASSIFICATION_TYPES.map((known) => <option key={known} value={known} />)}
        </datalist>
        <Field label="Value">
          <input value={value} onChange={edit(setValue)} required spellCheck={false} autoComplete="off" size={40} />
        </Field>
        <button type="submit" className="button secondary" disabled={lookup.isPending}>{lookup.isPending ? 'Looking…' : 'Look up'}</button>
      </form>
      <p className="muted">
        Written any way its type allows (with or without spaces and dashes in numbers, in any case for emails and
        IBANs). The value is sent only to be compared: the service does not keep it, and it stays out of the page's address.
      </p>
      {lookup.error && <ErrorBanner error={lookup.error} />}
      {lookup.data && <SightingsSummary sightings={lookup.data} />}
    </div>
  );
}
