import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api, errorMessage, isApiError } from '../../api/client.js';
import { setSession } from '../../api/session.js';

/** The one-time code the service puts in the fragment when the identity provider signed the user in. */
export function ssoCodeIn(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('sso_code');
}

/**
 * Lands a single sign-on: the code of `#sso_code=` is taken out of the address bar (and the
 * history) at once, then exchanged for a session, which is stored as a password sign-in's is.
 */
export function useSsoExchange(next: string) {
  const location = useLocation();
  const navigate = useNavigate();
  const exchanged = useRef(false);
  const exchange = useMutation({
    mutationFn: (code: string) => api.POST('/api/v1/auth/sso/exchange', { body: { code } }),
    onSuccess: (answer) => {
      setSession({ token: answer.token, expiresAt: answer.expires_at, user: answer.user });
      navigate(next, { replace: true });
    },
  });
  const { mutate } = exchange;
  const code = ssoCodeIn(location.hash);

  useEffect(() => {
    // The code is good once: a second exchange (React's development double effects) would fail.
    if (!code || exchanged.current) return;
    exchanged.current = true;
    navigate({ pathname: location.pathname, search: location.search }, { replace: true });
    mutate(code);
  }, [code, mutate, location.pathname, location.search, navigate]);

  return {
    /** From the first render: the code is in the URL, or its exchange is running. */
    signingIn: code !== null || exchange.isPending,
    error: exchange.error
      ? isApiError(exchange.error, 'unauthorized') ? 'This sign-in link is not valid any more. Start again.' : errorMessage(exchange.error)
      : null,
  };
}
