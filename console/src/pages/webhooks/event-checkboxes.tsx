import { ErrorBanner, Loading } from '../../components/ui.js';
import { PLAIN_LABEL } from '../../components/plain-label.js';
import { useEventTypes } from './event-types.js';
import type { EventType } from './types.js';

/** The catalog's event types as checkboxes, each with its description as a hint. */
export function EventCheckboxes({ selected, onChange }: { selected: EventType[]; onChange: (events: EventType[]) => void }) {
  const catalog = useEventTypes();
  const toggle = (type: EventType, on: boolean) =>
    onChange(on ? [...selected, type] : selected.filter((t) => t !== type));
  return (
    <fieldset className="field">
      <legend>Events</legend>
      {catalog.error ? <ErrorBanner error={catalog.error} /> : !catalog.data ? <Loading label="Loading the event types…" /> : (
        <div style={{ display: 'grid', gridTemplateColumns: 'repeat(2, minmax(0, 1fr))', gap: '4px 16px' }}>
          {catalog.data.event_types.map((event) => (
            <label key={event.type} className="checkbox" style={PLAIN_LABEL} title={event.description}>
              <input type="checkbox" checked={selected.includes(event.type)} onChange={(e) => toggle(event.type, e.target.checked)} />
              {event.type}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}
