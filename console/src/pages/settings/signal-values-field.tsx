import { useId } from 'react';
import { SIGNAL_VALUE_CHOICES, SIGNAL_VALUES_APPLY, type SignalValues } from './signal-values.js';

/** How the detected values of new interactions are kept: two choices, with when the change applies. */
export function SignalValuesField({ value, onChange }: { value: SignalValues; onChange: (value: SignalValues) => void }) {
  const id = useId();
  return (
    <fieldset className="field" aria-describedby={`${id}-hint`}>
      <legend>Detected values</legend>
      {SIGNAL_VALUE_CHOICES.map(([choice, label]) => (
        <label key={choice} className="checkbox">
          <input type="radio" name={`${id}-signal-values`} value={choice} checked={value === choice} onChange={() => onChange(choice)} />
          {label}
        </label>
      ))}
      <small id={`${id}-hint`} className="muted">{SIGNAL_VALUES_APPLY}</small>
    </fieldset>
  );
}
