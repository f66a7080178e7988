import { SSO_REFUSALS } from '../../../../src/modules/sso/sso.refusal-sentences.js';

/**
 * The service's own sentences, by the code it puts in `/sign-in?sso_error=`. Only these are ever
 * shown, never text taken from the URL, which anyone can write into a link.
 */
const SSO_REFUSAL_SENTENCES: Readonly<Record<string, string>> = SSO_REFUSALS;

const SSO_GENERIC_REFUSAL = 'Single sign-on did not succeed.';

/** The sentence for a refusal code; an unknown one (or `constructor`, `__proto__`...) gets the generic sentence. */
export function ssoRefusalSentence(code: string): string {
  return Object.hasOwn(SSO_REFUSAL_SENTENCES, code) ? SSO_REFUSAL_SENTENCES[code]! : SSO_GENERIC_REFUSAL;
}
