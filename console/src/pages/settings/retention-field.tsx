import { useId } from 'react';
import { PLAIN_LABEL } from '../../components/plain-label.js';

/**
 * A number of days, or "Keep forever" (the API's null). No minimum here: the API judges the value
 * and its sentence says why one is refused.
 */
export function RetentionField({ label, hint, days, forever, onDays, onForever }: {
  label: string;
  hint: string;
  days: string;
  forever: boolean;
  onDays: (days: string) => void;
  onForever: (forever: boolean) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="actions">
        <input id={id} type="number" step={1} required={!forever} value={forever ? '' : days} disabled={forever} aria-describedby={`${id}-hint`} style={{ width: 120 }} onChange={(e) => onDays(e.target.value)} />
        <span className="muted">days</span>
        <label className="checkbox" style={PLAIN_LABEL}>
          <input type="checkbox" checked={forever} onChange={(e) => onForever(e.target.checked)} aria-label={`${label}: keep forever`} />
          Keep forever
        </label>
      </div>
      <small id={`${id}-hint`} className="muted">{hint}</small>
    </div>
  );
}
