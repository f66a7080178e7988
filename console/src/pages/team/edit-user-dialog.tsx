import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner, Field } from '../../components/ui.js';
import { ROLES, type Notify, type Role, type User } from './team-types.js';

/** Change another user's role or display name (PUT /users/{id}); a new role applies on their next request. */
export function EditUserDialog({ user, onClose, notify }: { user: User | null; onClose: () => void; notify: Notify }) {
  return (
    <Dialog title="Edit user" open={user !== null} onClose={onClose}>
      {user && <EditUserForm key={user.id} user={user} onClose={onClose} notify={notify} />}
    </Dialog>
  );
}

function EditUserForm({ user, onClose, notify }: { user: User; onClose: () => void; notify: Notify }) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>(user.role);
  const [displayName, setDisplayName] = useState(user.display_name ?? '');
  const save = useMutation({
    mutationFn: () => api.PUT('/api/v1/users/{user_id}', {
      params: { path: { user_id: user.id } },
      body: { role, display_name: displayName.trim() === '' ? null : displayName.trim() },
    }),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      notify({ message: saved.role === user.role ? `${saved.email} saved.` : `${saved.email} is now ${saved.role}.` });
      onClose();
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <form onSubmit={submit} aria-label={`Edit ${user.email}`}>
      {save.error && <ErrorBanner error={save.error} />}
      <p><strong>{user.email}</strong></p>
      <Field label="Role" hint={ROLES.find((r) => r.value === role)?.hint}>
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
        </select>
      </Field>
      <Field label="Display name">
        <input autoComplete="off" value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
      </Field>
      <div className="actions">
        <button type="submit" className="button" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button>
        <button type="button" className="button secondary" onClick={onClose}>Cancel</button>
      </div>
    </form>
  );
}
