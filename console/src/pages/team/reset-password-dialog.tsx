import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { SecretOnce } from '../../components/copy-button.js';
import { ErrorBanner, Field, SuccessBanner } from '../../components/ui.js';
import { generatePassword } from './generate-password.js';
import type { User } from './team-types.js';
import { UserDialog } from './user-dialog.js';

/**
 * An admin sets a new password for a user (the API takes it, it never makes one); the user is
 * signed out everywhere. A generated password is shown once afterwards, to pass on to the user.
 */
export function ResetPasswordDialog({ user, onClose }: { user: User | null; onClose: () => void }) {
  return (
    <UserDialog title="Reset password" user={user} onClose={onClose}>
      {(shown) => <ResetPasswordForm user={shown} onClose={onClose} />}
    </UserDialog>
  );
}

function ResetPasswordForm({ user, onClose }: { user: User; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [generated, setGenerated] = useState<string | null>(null);
  const reset = useMutation({
    mutationFn: () => api.POST('/api/v1/users/{user_id}/reset-password', {
      params: { path: { user_id: user.id } },
      body: { new_password: password },
    }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['users'] }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    reset.mutate();
  }

  if (reset.data) {
    return (
      <div>
        <SuccessBanner>{reset.data.message}</SuccessBanner>
        {generated === password && <SecretOnce label={`New password of ${user.email}`} value={password} />}
        <button type="button" className="button" onClick={onClose}>Done</button>
      </div>
    );
  }

  return (
    <form onSubmit={submit} aria-label={`Reset the password of ${user.email}`}>
      {reset.error && <ErrorBanner error={reset.error} />}
      <p>
        Set a new password for <strong>{user.email}</strong>. They are signed out everywhere at once and sign in
        again with the new password. Give it to them over a channel you trust.
      </p>
      <Field label="New password" hint="At least 12 characters, with upper case, lower case and digits">
        <input type="text" autoComplete="new-password" spellCheck={false} required value={password}
          onChange={(e) => setPassword(e.target.value)} />
      </Field>
      <div className="actions">
        <button type="submit" className="button danger" disabled={reset.isPending}>{reset.isPending ? 'Resetting…' : 'Reset password'}</button>
        <button type="button" className="button secondary" onClick={() => {
          const value = generatePassword();
          setPassword(value);
          setGenerated(value);
        }}>Generate a password</button>
        <button type="button" className="button secondary" onClick={onClose}>Cancel</button>
      </div>
    </form>
  );
}
