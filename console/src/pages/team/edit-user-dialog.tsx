import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { ErrorBanner, Field } from '../../components/ui.js';
import { RoleField } from './role-field.js';
import type { Notify, Role, User } from './team-types.js';
import { UserDialog } from './user-dialog.js';

/** Change another user's role or display name (PUT /users/{id}); a new role applies on their next request. */
export function EditUserDialog({ user, onClose, notify }: { user: User | null; onClose: () => void; notify: Notify }) {
  return (
    <UserDialog title="Edit user" user={user} onClose={onClose}>
      {(shown) => <EditUserForm user={shown} onClose={onClose} notify={notify} />}
    </UserDialog>
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
      <RoleField role={role} onRole={setRole} />
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
