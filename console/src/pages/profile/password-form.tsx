import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { ErrorBanner, Field, SuccessBanner } from '../../components/ui.js';

/**
 * Changes the caller's password (PUT /users/me). The API asks only for the new one: this session
 * stays signed in, the user's other sessions are signed out.
 */
export function PasswordForm() {
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: () => api.PUT('/api/v1/users/me', { body: { password } }),
    onSuccess: () => {
      setPassword('');
      setConfirmation('');
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setMismatch(password !== confirmation);
    if (password === confirmation) change.mutate();
    else change.reset();
  }

  return (
    <form className="card" onSubmit={submit} aria-labelledby="password-title" style={{ maxWidth: 640 }}>
      <h2 id="password-title">Change my password</h2>
      {mismatch && <ErrorBanner message="The two passwords differ; type the same new password twice." />}
      {change.error && <ErrorBanner error={change.error} />}
      {change.isSuccess && <SuccessBanner>Password changed. Your other sessions were signed out; this one stays signed in.</SuccessBanner>}
      <Field label="New password" hint="At least 12 characters, with upper case, lower case and digits">
        <input type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      <Field label="Confirm the new password">
        <input type="password" autoComplete="new-password" required value={confirmation} onChange={(e) => setConfirmation(e.target.value)} />
      </Field>
      <button type="submit" className="button" disabled={change.isPending}>{change.isPending ? 'Changing…' : 'Change password'}</button>
    </form>
  );
}
