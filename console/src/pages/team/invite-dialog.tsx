import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner, Field } from '../../components/ui.js';
import { RoleField } from './role-field.js';
import type { Notify, Role } from './team-types.js';

/** Invite by email: the user is created `pending` and the service emails a 7-day link to /accept-invite. */
export function InviteDialog({ open, onClose, notify }: { open: boolean; onClose: () => void; notify: Notify }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [displayName, setDisplayName] = useState('');
  const invite = useMutation({
    mutationFn: () => api.POST('/api/v1/users/invite', {
      body: { email: email.trim(), role, ...(displayName.trim() ? { display_name: displayName.trim() } : {}) },
    }),
    onSuccess: async (user) => {
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      notify({ message: `Invitation sent to ${user.email}. The link in the email is valid for 7 days.` });
      close();
    },
  });

  function close() {
    setEmail('');
    setRole('viewer');
    setDisplayName('');
    invite.reset();
    onClose();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    invite.mutate();
  }

  return (
    <Dialog title="Invite a user" open={open} onClose={close}>
      <form onSubmit={submit} aria-label="Invite a user">
        {invite.error && <ErrorBanner error={invite.error} />}
        <Field label="Email">
          <input type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <RoleField role={role} onRole={setRole} />
        <Field label="Display name" hint="Optional; the user can change it when accepting">
          <input autoComplete="off" value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
        </Field>
        <div className="actions">
          <button type="submit" className="button" disabled={invite.isPending}>{invite.isPending ? 'Sending…' : 'Send invitation'}</button>
          <button type="button" className="button secondary" onClick={close}>Cancel</button>
        </div>
      </form>
    </Dialog>
  );
}
