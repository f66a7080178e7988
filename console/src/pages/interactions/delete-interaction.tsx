import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner } from '../../components/ui.js';

/** An admin's irreversible delete of one interaction, after a confirmation; its alerts stay. */
export function DeleteInteraction({ interactionId }: { interactionId: string }) {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.DELETE('/api/v1/interactions/{interaction_id}', { params: { path: { interaction_id: interactionId } } }),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['interaction', interactionId] });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['interactions'] }),
        queryClient.invalidateQueries({ queryKey: ['alerts'] }),
      ]);
      navigate('/interactions', { state: { notice: 'The interaction was deleted.' } });
    },
  });

  return (
    <>
      <button type="button" className="button danger" onClick={() => setOpen(true)}>Delete interaction</button>
      <Dialog title="Delete this interaction?" open={open} onClose={() => { setOpen(false); remove.reset(); }}>
        <p>The interaction is deleted for good (its alerts stay). The deletion is recorded in the audit log.</p>
        {remove.error && <ErrorBanner error={remove.error} />}
        <div className="actions">
          <button type="button" className="button danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
            {remove.isPending ? 'Deleting…' : 'Delete permanently'}
          </button>
          <button type="button" className="button secondary" onClick={() => setOpen(false)}>Cancel</button>
        </div>
      </Dialog>
    </>
  );
}
