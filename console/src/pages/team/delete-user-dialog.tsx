import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner } from '../../components/ui.js';
import type { Notify, User } from './team-types.js';

export function DeleteUserDialog({ user, onClose, notify }: { user: User | null; onClose: () => void; notify: Notify }) {
  return (
    <Dialog title="Delete user" open={user !== null} onClose={onClose}>
      {user && <DeleteUserConfirm key={user.id} user={user} onClose={onClose} notify={notify} />}
    </Dialog>
  );
}

function DeleteUserConfirm({ user, onClose, notify }: { user: User; onClose: () => void; notify: Notify }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.DELETE('/api/v1/users/{user_id}', { params: { path: { user_id: user.id } } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      notify({ message: `${user.email} was deleted.` });
      onClose();
    },
  });
  return (
    <div>
      {remove.error && <ErrorBanner error={remove.error} />}
      <p>
        Delete <strong>{user.email}</strong>? They are signed out at once and can no longer sign in.
        Their interactions, alerts and audit entries stay. This cannot be undone.
      </p>
      <div className="actions">
        <button type="button" className="button danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
          {remove.isPending ? 'Deleting…' : 'Delete user'}
        </button>
        <button type="button" className="button secondary" onClick={onClose}>Cancel</button>
      </div>
    </div>
  );
}
