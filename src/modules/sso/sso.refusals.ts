import * as oidc from 'openid-client';
import { SSO_REFUSALS } from './sso.refusal-sentences.js';

export { SSO_REFUSALS };

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
