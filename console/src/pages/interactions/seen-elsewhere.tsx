import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog } from '../../components/dialog.js';
import { QueryState } from '../../components/ui.js';
import { sightingsOf } from './sightings.js';
import { SightingsSummary } from './sightings-summary.js';

/** A classification's "Seen elsewhere": the interactions holding the same value, by its fingerprint. */
export function SeenElsewhere({ fingerprint, type, value }: { fingerprint: string; type: string; value: string }) {
  const [open, setOpen] = useState(false);
  const sightings = useQuery({
    // Under 'interactions', so that a deleted interaction is no longer counted.
    queryKey: ['interactions', 'sightings', fingerprint],
    queryFn: () => sightingsOf(fingerprint),
    enabled: open,
  });
  return (
    <>
      {/* Several rows have this button: its name says which value it is for. */}
      <button type="button" className="button link" aria-label={`Seen elsewhere: ${type} ${value}`.trim()} onClick={() => setOpen(true)}>
        Seen elsewhere
      </button>
      <Dialog title="Seen elsewhere" open={open} onClose={() => setOpen(false)}>
        <p className="muted">
          Interactions holding this {type} value{value ? <> (<code>{value}</code>)</> : null}, this one included, however it was written.
        </p>
        <QueryState query={sightings}>{(data) => <SightingsSummary sightings={data} />}</QueryState>
      </Dialog>
    </>
  );
}
