import { useId } from 'react';

/** Where the browser goes to sign in with the organization's identity provider, found by the email's domain. */
export function ssoStartUrl(email: string, next: string): string {
  return `/api/v1/auth/sso/start?${new URLSearchParams({ email, return_to: next })}`;
}

/** The way in through the identity provider, under the password form; `prominent` once the password was refused for it. */
export function SsoButton({ prominent, onStart }: { prominent: boolean; onStart: () => void }) {
  const id = useId();
  return (
    <div className="separated">
      <button type="button" className={prominent ? 'button' : 'button secondary'} aria-describedby={id} onClick={onStart}>
        Sign in with single sign-on
      </button>
      <small id={id} className="muted">Your work email above finds your organization's identity provider.</small>
    </div>
  );
}
