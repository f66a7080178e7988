import { describe, expect, it } from 'vitest';
import { mappedRole, verifiedEmail } from '../../src/modules/sso/sso.accounts.js';
import { SsoRefusal } from '../../src/modules/sso/sso.refusals.js';
import type { SsoSettingsRow } from '../../src/modules/sso/sso.settings.js';

const settings = (over: Partial<SsoSettingsRow> = {}) => ({
  tenant_id: 't', issuer: 'https://idp.test', client_id: 'c', client_secret_sealed: 'x', allowed_domains: ['acme.test'],
  role_claim: 'groups', admin_values: ['ugs-admins'], default_role: 'viewer', enforce: false,
  created_at: new Date(), updated_at: new Date(), updated_by: null, ...over,
}) as SsoSettingsRow;

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof SsoRefusal ? error.code : `not a refusal: ${String(error)}`;
  }
  return 'accepted';
};

/** How an ID token's claims become a member: the email the provider vouches for, and the role. */
describe('single sign-on claims', () => {
  it('takes the email only when the provider says it is verified (email_verified, or Entra ID\'s xms_edov), in an allowed domain', () => {
    expect(verifiedEmail(settings(), { email: 'Jane@ACME.test', email_verified: true })).toBe('Jane@ACME.test');
    expect(verifiedEmail(settings(), { email: 'jane@acme.test', xms_edov: true })).toBe('jane@acme.test');
    expect(refusal(() => verifiedEmail(settings(), { email: 'jane@acme.test' }))).toBe('email_unverified');
    expect(refusal(() => verifiedEmail(settings(), { email: 'jane@acme.test', email_verified: false }))).toBe('email_unverified');
    expect(refusal(() => verifiedEmail(settings(), { email_verified: true }))).toBe('email_unverified');
    expect(refusal(() => verifiedEmail(settings(), { email: 'jane@acme.test.evil', email_verified: true }))).toBe('domain_not_allowed');
    expect(refusal(() => verifiedEmail(settings(), { email: 'jane@sub.acme.test', email_verified: true }))).toBe('domain_not_allowed');
  });

  it('makes an admin of an admin value in the claim (a string, a list, or a dotted path), else the default role', () => {
    expect(mappedRole(settings(), { groups: ['staff', 'ugs-admins'] })).toBe('admin');
    expect(mappedRole(settings(), { groups: 'ugs-admins' })).toBe('admin');
    expect(mappedRole(settings(), { groups: ['staff'] })).toBe('viewer');
    expect(mappedRole(settings(), {})).toBe('viewer');
    const keycloak = settings({ role_claim: 'realm_access.roles' });
    expect(mappedRole(keycloak, { realm_access: { roles: ['ugs-admins'] } })).toBe('admin');
    expect(mappedRole(keycloak, { realm_access: { roles: 'ugs-admins' }, groups: ['ugs-admins'] })).toBe('admin');
    expect(mappedRole(keycloak, { groups: ['ugs-admins'] })).toBe('viewer');
    // Members only: no role for a newcomer without an admin value.
    expect(mappedRole(settings({ default_role: null }), { groups: ['staff'] })).toBeNull();
    expect(mappedRole(settings({ default_role: null }), { groups: ['ugs-admins'] })).toBe('admin');
  });
});
