import { useState, type ReactNode } from 'react';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner } from '../../components/ui.js';

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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  function close() {
    setError(null);
    onClose();
  }

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      close();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title={title} open={open} onClose={close}>
      {error !== null && <ErrorBanner error={error} />}
      <div>{children}</div>
      <div className="actions" style={{ justifyContent: 'flex-end', marginTop: 16 }}>
        <button type="button" className="button secondary" onClick={close}>Cancel</button>
        <button type="button" className="button danger" disabled={busy} onClick={confirm}>{confirmLabel}</button>
      </div>
    </Dialog>
  );
}
