import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client.js';
import { Badge, formatDate } from '../../components/ui.js';
import { DeleteUserDialog } from './delete-user-dialog.js';
import { EditUserDialog } from './edit-user-dialog.js';
import { ResetPasswordDialog } from './reset-password-dialog.js';
import { SELF_RULE, type Notify, type User } from './team-types.js';

export function UserTable({ users, meId, notify }: { users: User[]; meId: string | undefined; notify: Notify }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<User | null>(null);
  const [resetting, setResetting] = useState<User | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['users'] });
  const setStatus = useMutation({
    mutationFn: ({ user, status }: { user: User; status: 'active' | 'inactive' }) =>
      api.PATCH('/api/v1/users/{user_id}/status', { params: { path: { user_id: user.id } }, body: { status } }),
    onSuccess: (saved) => notify({
      message: saved.status === 'inactive' ? `${saved.email} is disabled and was signed out everywhere.` : `${saved.email} is enabled again.`,
    }),
    onError: (error) => notify({ error }),
    onSettled: refresh,
  });
  const resend = useMutation({
    mutationFn: (user: User) => api.POST('/api/v1/users/{user_id}/resend-invitation', { params: { path: { user_id: user.id } } }),
    onSuccess: (saved) => notify({ message: `A new invitation was sent to ${saved.email}; the earlier link no longer works.` }),
    onError: (error) => notify({ error }),
    onSettled: refresh,
  });
  const busy = setStatus.isPending || resend.isPending;

  return (
    <>
      <table className="data">
        <thead>
          <tr><th>User</th><th>Role</th><th>Status</th><th>Last sign-in</th><th>Added</th><th>Actions</th></tr>
        </thead>
        <tbody>
          {users.map((user) => {
            const isMe = user.id === meId;
            return (
              <tr key={user.id} data-testid={`user-${user.email}`}>
                <td>
                  <div>{user.email} {isMe && <Badge tone="info">you</Badge>}</div>
                  {user.display_name && <div className="muted">{user.display_name}</div>}
                </td>
                <td><Badge tone={user.role === 'admin' ? 'info' : 'neutral'}>{user.role}</Badge></td>
                <td><StatusCell user={user} /></td>
                <td>{formatDate(user.last_login)}</td>
                <td>{formatDate(user.created_at)}</td>
                <td style={{ maxWidth: 360 }}>
                  {isMe ? (
                    <p className="muted" style={{ margin: 0 }}>
                      {SELF_RULE} Change your name or password in <Link to="/profile">My profile</Link>.
                    </p>
                  ) : (
                    <div className="actions">
                      <button type="button" className="button secondary" aria-label={`Edit ${user.email}`}
                        onClick={() => setEditing(user)}>Edit</button>
                      {user.status === 'active' && (
                        <button type="button" className="button secondary" disabled={busy} aria-label={`Disable ${user.email}`}
                          onClick={() => setStatus.mutate({ user, status: 'inactive' })}>Disable</button>
                      )}
                      {user.status === 'inactive' && (
                        <button type="button" className="button secondary" disabled={busy} aria-label={`Enable ${user.email}`}
                          onClick={() => setStatus.mutate({ user, status: 'active' })}>Enable</button>
                      )}
                      {user.status === 'pending' ? (
                        <button type="button" className="button secondary" disabled={busy} aria-label={`Resend the invitation to ${user.email}`}
                          onClick={() => resend.mutate(user)}>Resend invitation</button>
                      ) : (
                        <button type="button" className="button secondary" aria-label={`Reset the password of ${user.email}`}
                          onClick={() => setResetting(user)}>Reset password</button>
                      )}
                      <button type="button" className="button danger" aria-label={`Delete ${user.email}`}
                        onClick={() => setDeleting(user)}>Delete</button>
                    </div>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <EditUserDialog user={editing} onClose={() => setEditing(null)} notify={notify} />
      <ResetPasswordDialog user={resetting} onClose={() => setResetting(null)} />
      <DeleteUserDialog user={deleting} onClose={() => setDeleting(null)} notify={notify} />
    </>
  );
}

function StatusCell({ user }: { user: User }) {
  if (user.status === 'active') return <Badge tone="good">active</Badge>;
  if (user.status === 'inactive') return <Badge tone="bad">disabled</Badge>;
  const expires = user.invitation_expires_at;
  const expired = expires ? Date.parse(expires) <= Date.now() : false;
  return (
    <>
      <Badge tone="warn">invited</Badge>
      {expires && (
        <div className="muted">{expired ? `Invitation expired ${formatDate(expires)}` : `Invitation valid until ${formatDate(expires)}`}</div>
      )}
    </>
  );
}
