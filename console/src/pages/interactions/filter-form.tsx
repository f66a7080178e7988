import { useId, useState, type FormEvent } from 'react';
import { DateRange } from '../../components/date-range.js';
import { Field } from '../../components/ui.js';
import { DIRECTIONS, KNOWN_CLASSIFICATION_TYPES, SOURCES, type FilterKey, type FilterValues } from './filters.js';

/**
 * The list's filters, edited here and applied together on submit (Enter or the button), so the
 * list is not asked again at every keystroke. The page remounts it when the URL's filters change.
 */
export function FilterForm({ initial, onApply, onClear }: { initial: FilterValues; onApply(values: FilterValues): void; onClear?: () => void }) {
  const [values, setValues] = useState(initial);
  const typesId = useId();
  const set = (key: FilterKey) => (event: { target: { value: string } }) => setValues({ ...values, [key]: event.target.value });

  function submit(event: FormEvent) {
    event.preventDefault();
    onApply(values);
  }

  return (
    <form className="card" role="search" aria-label="Filter interactions" onSubmit={submit}>
      <div className="filters">
        <Field label="Platform">
          <input value={values.platform_id} onChange={set('platform_id')} placeholder="e.g. chatgpt" size={14} />
        </Field>
        <Field label="User ID">
          <input value={values.user_id} onChange={set('user_id')} placeholder="UUID" size={24} />
        </Field>
        <Field label="Source">
          <select value={values.source} onChange={set('source')}>
            <option value="">Any</option>
            {SOURCES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </Field>
        <Field label="Direction">
          <select value={values.direction} onChange={set('direction')}>
            <option value="">Any</option>
            {DIRECTIONS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </Field>
        <Field label="Classification type">
          <input value={values.classification_type} onChange={set('classification_type')} list={typesId} placeholder="e.g. EMAIL" size={14} />
        </Field>
        <datalist id={typesId}>
          {KNOWN_CLASSIFICATION_TYPES.map((type) => <option key={type} value={type} />)}
        </datalist>
        <Field label="Minimum risk">
          <input type="number" min={0} max={1} step={0.01} value={values.risk_score_min} onChange={set('risk_score_min')} style={{ width: 90 }} />
        </Field>
        <Field label="Maximum risk">
          <input type="number" min={0} max={1} step={0.01} value={values.risk_score_max} onChange={set('risk_score_max')} style={{ width: 90 }} />
        </Field>
        <DateRange
          start={values.start_date || undefined}
          end={values.end_date || undefined}
          onChange={(start, end) => setValues({ ...values, start_date: start ?? '', end_date: end ?? '' })}
        />
        <div className="actions">
          <button type="submit" className="button">Apply filters</button>
          {onClear && <button type="button" className="button secondary" onClick={onClear}>Clear filters</button>}
        </div>
      </div>
    </form>
  );
}
