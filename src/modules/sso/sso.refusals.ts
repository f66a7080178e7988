import * as oidc from 'openid-client';

/**
 * Why a single sign-on did not succeed. The callback sends the browser back to the console's
 * sign-in page with the code (`/sign-in?sso_error=<code>`), which shows its sentence; the audit
 * log keeps the code and, for the provider's errors, what the provider said.
 */
export const SSO_REFUSALS = {
  not_configured: 'Single sign-on is not set up for this organization.',
  ambiguous_domain: 'Several organizations use single sign-on for this email domain; sign in from your organization\'s link.',
  state_invalid: 'This sign-in link is not valid any more (it was used, it expired, or it was started in another browser). Start again.',
  code_invalid: 'The identity provider refused the sign-in code (it was already used or has expired). Start again.',
  nonce_mismatch: 'The identity provider\'s answer does not belong to this sign-in (nonce mismatch). Start again.',
  token_invalid: 'The identity provider\'s ID token could not be trusted (bad signature, wrong issuer or audience, or expired).',
  email_unverified: 'Your identity provider did not confirm your email address, so it cannot be used to sign in.',
  domain_not_allowed: 'Your email domain is not allowed to sign in to this organization.',
  not_member: 'You are not a member of this organization; ask an admin to add you.',
  user_inactive: 'Your account is disabled; ask an admin of your organization.',
  provider_refused: 'The identity provider did not sign you in.',
  provider_unreachable: 'The identity provider could not be reached. Try again in a moment.',
} as const;

export type SsoRefusalCode = keyof typeof SSO_REFUSALS;

export class SsoRefusal extends Error {
  constructor(readonly code: SsoRefusalCode, readonly detail?: string) {
    super(SSO_REFUSALS[code]);
  }
}

/** What the relying-party library's error means for the person signing in. */
export function refusalFrom(error: unknown): SsoRefusal {
  if (error instanceof SsoRefusal) return error;
  if (error instanceof oidc.ResponseBodyError) {
    const code = error.error === 'invalid_grant' ? 'code_invalid' : 'provider_refused';
    return new SsoRefusal(code, `${error.error}: ${error.error_description ?? ''}`.trim());
  }
  if (error instanceof oidc.AuthorizationResponseError) {
    return new SsoRefusal('provider_refused', `${error.error}: ${error.error_description ?? ''}`.trim());
  }
  if (error instanceof oidc.ClientError) {
    const claim = claimOf(error);
    if (claim === 'nonce') return new SsoRefusal('nonce_mismatch');
    if (isTokenCheck(error)) return new SsoRefusal('token_invalid', claim ? `${error.message} (${claim})` : error.message);
    return new SsoRefusal('provider_unreachable', error.message);
  }
  return new SsoRefusal('provider_unreachable', error instanceof Error ? error.message : String(error));
}

const TOKEN_CHECKS = new Set<string>([
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'OAUTH_KEY_SELECTION_FAILED',
  'OAUTH_INVALID_RESPONSE', 'OAUTH_UNSUPPORTED_OPERATION', 'OAUTH_PARSE_ERROR',
]);

function isTokenCheck(error: oidc.ClientError): boolean {
  return error.code !== undefined && TOKEN_CHECKS.has(error.code);
}

/** Whether the failure was the provider's key set lacking the token's key. */
export function isKeySelection(error: unknown): boolean {
  return error instanceof oidc.ClientError && error.code === 'OAUTH_KEY_SELECTION_FAILED';
}

function claimOf(error: Error): string | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause; depth += 1) {
    const claim = (cause as { cause?: { claim?: unknown } }).cause?.claim;
    if (typeof claim === 'string') return claim;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}
