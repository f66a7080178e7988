import { abbreviateFingerprint } from './filters.js';

/** The active `fingerprint` filter, which has no field in the form: shown short, removable. */
export function FingerprintChip({ fingerprint, onRemove }: { fingerprint: string; onRemove(): void }) {
  return (
    <div className="chips" role="group" aria-label="Active filters">
      <span className="chip" title={fingerprint}>
        Detected value <code data-testid="fingerprint-filter">{abbreviateFingerprint(fingerprint)}</code>
        <button type="button" className="chip-remove" aria-label="Remove the detected value filter" onClick={onRemove}>✕</button>
      </span>
    </div>
  );
}
