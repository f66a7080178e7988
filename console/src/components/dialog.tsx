import { useEffect, useRef, type ReactNode } from 'react';

/** A modal on the native <dialog>: focus is trapped and Escape closes it, as the browser does. */
export function Dialog({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-label={title} onClose={onClose}>
      {open && (
        <>
          <div className="dialog-header">
            <h2>{title}</h2>
            <button type="button" className="button link" aria-label="Close" onClick={onClose}>✕</button>
          </div>
          {children}
        </>
      )}
    </dialog>
  );
}
