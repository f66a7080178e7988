import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner, Field } from '../../components/ui.js';
import { displayName, STATUSES, type Platform, type Status } from './apps.js';

/** An admin sets the tenant's status of a platform, with an optional note (PUT /platforms/{id}/status, audited). */
export function StatusDialog({ platform, onClose, onSaved }: {
  platform: Platform | null;
  onClose: () => void;
  onSaved: (platform: Platform) => void;
}) {
  return (
    <Dialog title="Change status" open={platform !== null} onClose={onClose}>
      {/* Made anew for each platform, so nothing typed for one is left for the next. */}
      {platform && <Fragment key={platform.id}><StatusForm platform={platform} onClose={onClose} onSaved={onSaved} /></Fragment>}
    </Dialog>
  );
}

function StatusForm({ platform, onClose, onSaved }: { platform: Platform; onClose: () => void; onSaved: (platform: Platform) => void }) {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<Status>(platform.status);
  const [note, setNote] = useState(platform.note);
  const save = useMutation({
    mutationFn: () => api.PUT('/api/v1/platforms/{platform_id}/status', {
      params: { path: { platform_id: platform.id } },
      body: { status, note: note.trim() },
    }),
    onSuccess: async (saved) => {
      // The usage and the people's ranking show statuses too.
      await queryClient.invalidateQueries({ queryKey: ['platforms'] });
      await queryClient.invalidateQueries({ queryKey: ['people-risk'] });
      onSaved(saved);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <form onSubmit={submit} aria-label={`Status of ${displayName(platform)}`}>
      {save.error && <ErrorBanner error={save.error} />}
      <p><strong>{displayName(platform)}</strong>{platform.vendor && <span className="muted"> · {platform.vendor}</span>}</p>
      <fieldset className="field" style={{ border: 'none', padding: 0, margin: '0 0 12px' }}>
        <legend style={{ fontWeight: 550 }}>Status</legend>
        {STATUSES.map(([value, text]) => (
          <label key={value} className="checkbox">
            <input type="radio" name="status" value={value} checked={status === value} onChange={() => setStatus(value)} />
            {text}
          </label>
        ))}
      </fieldset>
      <Field label="Note (optional)" hint="Why: shown beside the status to everyone in your organization.">
        <textarea rows={3} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
      </Field>
      <div className="actions">
        <button type="submit" className="button" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save status'}</button>
        <button type="button" className="button secondary" onClick={onClose}>Cancel</button>
      </div>
    </form>
  );
}
