import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../../api/client.js';
import { Field } from '../../components/ui.js';
import { dateTimeToDay } from '../../lib/url-state.js';
import { FILTER_KEYS, KNOWN_ACTIONS } from './filters.js';

/**
 * The filters, applied to the URL on submit (so a filtered log can be linked). Rendered with a
 * key of the URL's search so that going back and forth shows the URL's values.
 */
export function AuditFilterForm() {
  const [params, setParams] = useSearchParams();
  const actionsId = useId();
  const [action, setAction] = useState(params.get('action') ?? '');
  const [actorId, setActorId] = useState(params.get('actor_id') ?? '');
  const [startDay, setStartDay] = useState(dateTimeToDay(params.get('start_date')));
  const [endDay, setEndDay] = useState(dateTimeToDay(params.get('end_date')));
  const actors = useActors();
  const knownActor = actors.some((actor) => actor.id === actorId);

  function apply(event: FormEvent) {
    event.preventDefault();
    const next = new URLSearchParams();
    const values: Record<(typeof FILTER_KEYS)[number], string> = { action: action.trim(), actor_id: actorId, start_date: startDay, end_date: endDay };
    for (const key of FILTER_KEYS) if (values[key]) next.set(key, values[key]);
    setParams(next);
  }

  return (
    <form className="filters" onSubmit={apply} aria-label="Filters">
      <Field label="Action">
        <input list={actionsId} value={action} placeholder="e.g. policy.updated" onChange={(e) => setAction(e.target.value)} />
      </Field>
      <datalist id={actionsId}>
        {KNOWN_ACTIONS.map((known) => <option key={known} value={known} />)}
      </datalist>
      <Field label="Actor">
        <select value={actorId} onChange={(e) => setActorId(e.target.value)}>
          <option value="">Anyone</option>
          {actors.map((actor) => <option key={actor.id} value={actor.id}>{actor.label}</option>)}
          {actorId && !knownActor && <option value={actorId}>{actorId}</option>}
        </select>
      </Field>
      <Field label="From">
        <input type="date" value={startDay} onChange={(e) => setStartDay(e.target.value)} />
      </Field>
      <Field label="To">
        <input type="date" value={endDay} onChange={(e) => setEndDay(e.target.value)} />
      </Field>
      <button type="submit" className="button">Apply</button>
      <button type="button" className="button secondary" onClick={() => setParams(new URLSearchParams())}>Clear</button>
    </form>
  );
}

/** Who can appear as an actor: the users (by email) and the active API keys (by name). */
function useActors(): { id: string; label: string }[] {
  const users = useQuery({ queryKey: ['users', 'actors'], queryFn: () => api.GET('/api/v1/users', { params: { query: { limit: 500 } } }) });
  const keys = useQuery({ queryKey: ['api-keys', 'actors'], queryFn: () => api.GET('/api/v1/api-keys', { params: { query: { limit: 500 } } }) });
  return [
    ...(users.data?.users ?? []).map((user) => ({ id: user.id, label: user.email })),
    ...(keys.data?.api_keys ?? []).map((key) => ({ id: key.id, label: `API key: ${key.name}` })),
  ];
}
