import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.js';
import { ErrorBanner } from '../../components/ui.js';
import type { Notify, User } from './team-types.js';
import { UserDialog } from './user-dialog.js';

export function DeleteUserDialog({ user, onClose, notify }: { user: User | null; onClose: () => void; notify: Notify }) {
  return (
    <UserDialog title="Delete user" user={user} onClose={onClose}>
      {(shown) => <DeleteUserConfirm user={shown} onClose={onClose} notify={notify} />}
    </UserDialog>
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
