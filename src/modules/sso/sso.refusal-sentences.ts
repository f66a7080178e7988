// Plain data, without imports: the console's sign-in page bundles this file too.

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
