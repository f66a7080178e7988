import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, errorMessage, isApiError } from '../api/client.js';
import { setSession } from '../api/session.js';
import { ErrorBanner, Field } from '../components/ui.js';

/** The invitation email's link lands here: the new user sets a password and a display name. */
export function AcceptInvitePage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const token = params.get('token') ?? '';
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const accept = useMutation({
    mutationFn: () => api.POST('/api/v1/auth/accept-invite', {
      body: { token, password, ...(displayName.trim() ? { display_name: displayName.trim() } : {}) },
    }),
    onSuccess: (answer) => {
      setSession({ token: answer.token, expiresAt: answer.expires_at, user: answer.user });
      navigate('/', { replace: true });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setMismatch(password !== confirmation);
    if (password === confirmation) accept.mutate();
    else accept.reset();
  }

  if (!token) {
    return (
      <div className="centered">
        <div className="card narrow">
          <h1>Accept invitation</h1>
          <ErrorBanner message="This link has no invitation token. Open the link from your invitation email." />
          <Link to="/sign-in">Go to sign in</Link>
        </div>
      </div>
    );
  }

  return (
    <div className="centered">
      <form className="card narrow" onSubmit={submit} aria-labelledby="accept-title">
        <h1 id="accept-title">Accept invitation</h1>
        <p className="muted">Choose your password to join your team.</p>
        {mismatch && <ErrorBanner message="The two passwords differ." />}
        {accept.error && <ErrorBanner message={isApiError(accept.error, 'not_found')
          ? 'This invitation link is not valid (already used, or replaced by a newer invitation). Ask an admin to resend it.'
          : errorMessage(accept.error)} />}
        <Field label="Display name">
          <input autoComplete="name" value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
        </Field>
        <Field label="Password" hint="At least 12 characters, with upper case, lower case and digits.">
          <input type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <Field label="Confirm password">
          <input type="password" autoComplete="new-password" required value={confirmation} onChange={(e) => setConfirmation(e.target.value)} />
        </Field>
        <button type="submit" className="button" disabled={accept.isPending}>{accept.isPending ? 'Joining…' : 'Join'}</button>
      </form>
    </div>
  );
}
