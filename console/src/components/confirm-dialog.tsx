import { useMutation } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Dialog } from './dialog.js';
import { ErrorBanner } from './ui.js';

/**
 * Asks before an action that cannot be undone (delete, revoke, rotate). The action's error is
 * shown in the dialog, which stays open; on success the dialog closes itself.
 */
export function ConfirmDialog({ title, open, onClose, onConfirm, confirmLabel, children }: {
  title: string;
  open: boolean;
  onClose: () => void;
  onConfirm: () => Promise<void>;
  confirmLabel: string;
  children: ReactNode;
}) {
  const action = useMutation({ mutationFn: onConfirm, onSuccess: close });

  function close() {
    action.reset();
    onClose();
  }

  return (
    <Dialog title={title} open={open} onClose={close}>
      {action.error && <ErrorBanner error={action.error} />}
      <div>{children}</div>
      <div className="actions" style={{ justifyContent: 'flex-end', marginTop: 16 }}>
        <button type="button" className="button secondary" onClick={close}>Cancel</button>
        <button type="button" className="button danger" disabled={action.isPending} onClick={() => action.mutate()}>{confirmLabel}</button>
      </div>
    </Dialog>
  );
}
