import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { api } from '../api/client.js';
import { setSession } from '../api/session.js';
import { useSession } from '../api/use-session.js';
import { ErrorBanner, Field } from '../components/ui.js';

/** Where to go after sign-in: only a path of this console, never another origin. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const next = safeNext(params.get('next'));
  const signIn = useMutation({
    mutationFn: () => api.POST('/api/v1/auth/login', { body: { email, password } }),
    onSuccess: (answer) => {
      setSession({ token: answer.token, expiresAt: answer.expires_at, user: answer.user });
      navigate(next, { replace: true });
    },
  });

  if (session) return <Navigate to={next} replace />;

  function submit(event: FormEvent) {
    event.preventDefault();
    signIn.mutate();
  }

  return (
    <div className="centered">
      <form className="card narrow" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in</h1>
        {params.get('next') && !signIn.error && <p className="muted">Your session has ended. Sign in to continue.</p>}
        {signIn.error && <ErrorBanner error={signIn.error} />}
        <Field label="Email">
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Password">
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <button type="submit" className="button" disabled={signIn.isPending}>{signIn.isPending ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </div>
  );
}
