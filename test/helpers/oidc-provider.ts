import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import * as jose from 'jose';
import Provider from 'oidc-provider';
import { createTestCertificates, type TestCertificates } from './https-receiver.js';

export interface TestAccount {
  email: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

/** Rewrites the ID token the token endpoint answers: its claims, and which key signs it. */
export type IdTokenTamper = (claims: jose.JWTPayload) => { claims: jose.JWTPayload; signer?: 'provider' | 'stranger' };

export const TEST_CLIENT_ID = 'ugs-test-client';
export const TEST_CLIENT_SECRET = 'ugs-test-client-secret-0123456789';

/**
 * A real OpenID provider (oidc-provider) on HTTPS at 127.0.0.1, with its development sign-in
 * page (any login is accepted; the login names an account of `accounts`) and no consent page. The test CA is added
 * to this process's trust store, so the service running in it verifies the provider's certificate.
 * `tamper` rewrites the next ID tokens (re-signed with the provider's key, or a stranger's), to
 * show that the service refuses what a misbehaving or forged provider answer would carry.
 */
export class TestOpenIdProvider {
  readonly accounts = new Map<string, TestAccount & Record<string, unknown>>();
  tamper: IdTokenTamper | undefined;
  /** Sends the browser back with this code instead of the one just issued (a code injected by an attacker). */
  substituteCode: string | undefined;
  private keys: jose.JWK[] = [];
  private server: Server | undefined;
  private port = 0;

  private constructor(private readonly certificates: TestCertificates, private readonly redirectUri: string) {}

  /** `trustCa: false` leaves its CA out of the trust store: a provider whose certificate is not to be trusted. */
  static async start(redirectUri: string, options: { trustCa?: boolean } = {}): Promise<TestOpenIdProvider> {
    const certificates = createTestCertificates();
    if (options.trustCa !== false) {
      setDefaultCACertificates([...getCACertificates('default'), readFileSync(certificates.caFile, 'utf8')]);
    }
    const provider = new TestOpenIdProvider(certificates, redirectUri);
    provider.keys = [await newSigningKey()];
    await provider.listen();
    return provider;
  }

  get issuer(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get signingKeyIds(): string[] {
    return this.keys.map((key) => key.kid!);
  }

  /**
   * Key rotation, each step a restart on the same port (as a provider's new deployment would):
   * `publish` adds a key that is published but not used yet; `sign` signs with the newest key,
   * still publishing the others; `replace` publishes and uses only a brand new key (an emergency).
   */
  async rotateKeys(step: 'publish' | 'sign' | 'replace'): Promise<void> {
    if (step === 'publish') this.keys = [...this.keys, await newSigningKey()];
    if (step === 'sign') this.keys = [this.keys.at(-1)!, ...this.keys.slice(0, -1)];
    if (step === 'replace') this.keys = [await newSigningKey()];
    await this.close();
    await this.listen();
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listen(): Promise<void> {
    const server = createServer({ cert: this.certificates.cert, key: this.certificates.key });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    const oidc = this.provider();
    server.on('request', oidc.callback());
    this.server = server;
  }

  private provider(): Provider {
    const provider = new Provider(this.issuer, {
      clients: [{
        client_id: TEST_CLIENT_ID,
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: [this.redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      }],
      jwks: { keys: this.keys },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups', 'realm_access'] },
      // The claims go into the ID token, where the service reads them (as Entra ID, Okta and Google put them).
      conformIdTokenClaims: false,
      cookies: { keys: ['ugs-test-provider-cookie-key'] },
      // A first-party client, as a company's own application is: no consent page after sign-in.
      loadExistingGrant: async (ctx) => {
        const { client, session, provider: self } = ctx.oidc;
        const grantId = ctx.oidc.result?.consent?.grantId ?? session!.grantIdFor(client!.clientId);
        if (grantId) return self.Grant.find(grantId);
        const grant = new self.Grant({ clientId: client!.clientId, accountId: session!.accountId! });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
      findAccount: (_ctx, id) => {
        const account = this.accounts.get(id);
        if (!account) return undefined;
        return { accountId: id, claims: () => ({ sub: id, ...account }) };
      },
    });
    provider.use(async (ctx, next) => {
      await next();
      const location = ctx.response.get('location') as string | undefined;
      if (this.substituteCode && location?.startsWith(this.redirectUri)) {
        const url = new URL(location);
        url.searchParams.set('code', this.substituteCode);
        ctx.redirect(url.href);
      }
      const body = ctx.body as { id_token?: string } | undefined;
      if (ctx.path === '/token' && this.tamper && body?.id_token) {
        ctx.body = { ...body, id_token: await this.resign(body.id_token, this.tamper) };
      }
    });
    return provider;
  }

  private async resign(idToken: string, tamper: IdTokenTamper): Promise<string> {
    const { claims, signer = 'provider' } = tamper(jose.decodeJwt(idToken));
    const header = jose.decodeProtectedHeader(idToken);
    const jwk = signer === 'provider' ? this.keys[0]! : await newSigningKey(header.kid);
    return new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: header.kid!, typ: 'JWT' })
      .sign(await jose.importJWK(jwk, 'RS256'));
  }
}

async function newSigningKey(kid?: string): Promise<jose.JWK> {
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  return { ...jwk, kid: kid ?? `k-${crypto.randomUUID().slice(0, 8)}`, alg: 'RS256', use: 'sig' };
}
