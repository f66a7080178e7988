import { useMutation } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, errorMessage, isApiError } from '../api/client.js';
import { setSession } from '../api/session.js';
import { useSession } from '../api/use-session.js';
import { ErrorBanner, Field } from '../components/ui.js';
import { SsoButton, ssoStartUrl } from './sign-in/sso-button.js';
import { ssoRefusalSentence } from './sign-in/sso-refusals.js';
import { useSsoExchange } from './sign-in/use-sso-exchange.js';

const EMAIL_NEEDED = 'Enter your work email first: single sign-on finds your organization from it.';

/** Where to go after sign-in: only a path of this console, never another origin. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const session = useSession();
  const emailInput = useRef<HTMLInputElement>(null);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [emailNeeded, setEmailNeeded] = useState(false);
  const next = safeNext(params.get('next'));
  const signIn = useMutation({
    mutationFn: () => api.POST('/api/v1/auth/login', { body: { email, password } }),
    onSuccess: (answer) => {
      setSession({ token: answer.token, expiresAt: answer.expires_at, user: answer.user });
      navigate(next, { replace: true });
    },
  });
  const sso = useSsoExchange(next);
  const ssoError = params.get('sso_error');

  if (session) return <Navigate to={next} replace />;

  function submit(event: FormEvent) {
    event.preventDefault();
    setEmailNeeded(false);
    signIn.mutate();
  }

  function startSso() {
    if (!emailInput.current?.checkValidity()) {
      setEmailNeeded(true);
      emailInput.current?.focus();
      return;
    }
    setEmailNeeded(false);
    window.location.assign(ssoStartUrl(email.trim(), next));
  }

  // The password was refused because the organization requires single sign-on: its button becomes the primary one.
  const ssoRequired = isApiError(signIn.error, 'sso_required');
  // One problem at a time, the latest first.
  const problem = emailNeeded ? EMAIL_NEEDED
    : signIn.error ? errorMessage(signIn.error)
    : sso.error ?? (ssoError !== null ? ssoRefusalSentence(ssoError) : null);

  return (
    <div className="centered">
      <form className="card narrow" onSubmit={submit} aria-labelledby="sign-in-title" aria-busy={sso.signingIn}>
        <h1 id="sign-in-title">Sign in</h1>
        <p role="status" aria-live="polite" className="muted sign-in-status">
          {sso.signingIn ? 'Signing you in…' : params.get('next') && !problem ? 'Your session has ended. Sign in to continue.' : ''}
        </p>
        {problem && <ErrorBanner message={problem} />}
        {!sso.signingIn && (
          <>
            <Field label="Email">
              <input ref={emailInput} type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
            </Field>
            <Field label="Password">
              <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
            </Field>
            <button type="submit" className={ssoRequired ? 'button secondary' : 'button'} disabled={signIn.isPending}>
              {signIn.isPending ? 'Signing in…' : 'Sign in'}
            </button>
            <SsoButton prominent={ssoRequired} onStart={startSso} />
          </>
        )}
      </form>
    </div>
  );
}
