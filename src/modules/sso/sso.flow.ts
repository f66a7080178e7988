import { sql } from 'kysely';
import * as oidc from 'openid-client';
import type { Deps } from '../../platform/deps.js';
import { userContext, type RequestContext } from '../../kernel/context.js';
import { randomSecret, sha256Hex } from '../../kernel/crypto.js';
import { AppError, validationError } from '../../kernel/errors.js';
import { decryptValue, encryptValue } from '../../platform/crypto/envelope.js';
import { writeAudit } from '../audit/audit.writer.js';
import { createSession } from '../../platform/identity/sessions.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { ALL_TENANTS, onlyTenants } from '../../platform/store/tenant-scope.js';
import { toUserResponse, type LoginResult } from '../users/users.schemas.js';
import { memberFor, verifiedEmail } from './sso.accounts.js';
import type { ProviderConfigurations } from './sso.provider.js';
import { isKeySelection, refusalFrom, SsoRefusal } from './sso.refusals.js';
import { callbackUrl, clientSecret, type SsoSettingsRow } from './sso.settings.js';

const FLOW_TTL_MS = 10 * 60 * 1000;
const EXCHANGE_TTL_MS = 2 * 60 * 1000;
const EXCHANGE_PREFIX = 'ugx_';
const VERIFIER_PURPOSE = 'sso.code_verifier';
const UNIQUE_VIOLATION = '23505';

export interface Meta { ip: string; requestId: string }

/** A path of the console, never another origin (`//host`, `/\host`) nor a URL. */
export function safeReturnTo(path: string | undefined): string {
  if (!path) return '/';
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\') || /[\u0000-\u001f]/.test(path)) {
    throw validationError('querystring.return_to', 'must be a path of the console, such as /alerts');
  }
  return path;
}

/** The tenant a sign-in starts for: named, or found by the email's domain among the tenants that set one up. */
async function settingsFor(deps: Deps, query: { tenant_id?: string | undefined; email?: string | undefined }): Promise<SsoSettingsRow> {
  const anyTenant = inFixedScope(deps.store.db, ALL_TENANTS);
  if (query.tenant_id) {
    const row = await anyTenant.selectFrom('tenant_sso').selectAll().where('tenant_id', '=', query.tenant_id).executeTakeFirst();
    if (!row) throw new SsoRefusal('not_configured');
    return row;
  }
  if (!query.email) throw validationError('querystring', 'must name the tenant (tenant_id) or the user (email)');
  const at = query.email.lastIndexOf('@');
  const domain = query.email.slice(at + 1).trim().toLowerCase();
  if (at < 1 || !domain) throw validationError('querystring.email', 'must be an email address');
  const rows = await anyTenant.selectFrom('tenant_sso').selectAll()
    .where(sql<boolean>`allowed_domains @> ${JSON.stringify([domain])}::jsonb`).limit(20).execute();
  if (rows.length === 1) return rows[0]!;
  if (rows.length === 0) throw new SsoRefusal('not_configured');
  // Several tenants take this domain: the one where this email is already a member, if only one.
  const members = await anyTenant.selectFrom('users').select('tenant_id')
    .where('tenant_id', 'in', rows.map((row) => row.tenant_id))
    .where((eb) => eb(eb.fn('lower', ['email']), '=', query.email!.trim().toLowerCase())).execute();
  if (members.length === 1) return rows.find((row) => row.tenant_id === members[0]!.tenant_id)!;
  throw new SsoRefusal('ambiguous_domain');
}

/** Begins a sign-in: records the flow and returns the provider's authorization URL and the browser's binding secret. */
export async function startSignIn(
  deps: Deps, providers: ProviderConfigurations,
  query: { tenant_id?: string | undefined; email?: string | undefined; return_to?: string | undefined },
): Promise<{ location: string; browserSecret: string }> {
  const returnTo = safeReturnTo(query.return_to);
  const settings = await settingsFor(deps, query);
  const now = deps.clock.now();
  const config = await providerConfig(deps, providers, settings);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const browserSecret = randomSecret();
  const keys = await deps.keyring.forTenant(settings.tenant_id);
  const scoped = inFixedScope(deps.store.db, onlyTenants([settings.tenant_id]));
  await scoped.deleteFrom('sso_flows').where('tenant_id', '=', settings.tenant_id).where('expires_at', '<', now).execute();
  await scoped.deleteFrom('sso_exchanges').where('tenant_id', '=', settings.tenant_id).where('expires_at', '<', now).execute();
  await scoped.insertInto('sso_flows').values({
    tenant_id: settings.tenant_id, state_hash: sha256Hex(state), browser_hash: sha256Hex(browserSecret), nonce,
    code_verifier: encryptValue(keys, VERIFIER_PURPOSE, codeVerifier), return_to: returnTo, created_at: now, expires_at: new Date(now.getTime() + FLOW_TTL_MS),
  }).execute();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(deps),
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...(query.email ? { login_hint: query.email } : {}),
  });
  return { location: url.href, browserSecret };
}

/**
 * The provider's answer: the flow is found by `state` and taken once (and only from the browser
 * that started it), the code redeemed with its PKCE verifier, the ID token checked by
 * openid-client (signature against the provider's keys, issuer, audience, expiry, nonce). Then the
 * member is found or created and a one-time exchange code is issued for the console.
 * Returns where to send the browser: the console with the code, or its sign-in page with a refusal.
 */
export async function finishSignIn(
  deps: Deps, providers: ProviderConfigurations, rawQuery: string, params: { state?: string | undefined },
  browserSecret: string | undefined, meta: Meta,
): Promise<string> {
  const base = deps.config.server.publicBaseUrl;
  let settings: SsoSettingsRow | undefined;
  let returnTo: string | undefined;
  try {
    const flow = await takeFlow(deps, params.state, browserSecret);
    returnTo = flow.return_to;
    settings = await inFixedScope(deps.store.db, onlyTenants([flow.tenant_id])).selectFrom('tenant_sso').selectAll()
      .where('tenant_id', '=', flow.tenant_id).executeTakeFirst();
    if (!settings) throw new SsoRefusal('not_configured');
    const verifier = decryptValue(await deps.keyring.forTenant(flow.tenant_id), VERIFIER_PURPOSE, flow.code_verifier);
    const claims = await redeem(deps, providers, settings, rawQuery, { state: params.state!, nonce: flow.nonce, verifier });
    const email = verifiedEmail(settings, claims);
    const identity = { email, name: typeof claims.name === 'string' ? claims.name.slice(0, 200) : null, claims };
    const code = await issueExchange(deps, settings, identity, meta);
    return `${base}/sign-in?next=${encodeURIComponent(flow.return_to)}#sso_code=${encodeURIComponent(code)}`;
  } catch (error) {
    if (!(error instanceof SsoRefusal) && !(error instanceof oidc.ClientError) && !(error instanceof oidc.ResponseBodyError)
      && !(error instanceof oidc.AuthorizationResponseError) && !(error instanceof TypeError)) throw error;
    const refusal = refusalFrom(error);
    if (settings) await auditRefusal(deps, settings.tenant_id, refusal, meta);
    return refusalLocation(base, refusal.code, returnTo);
  }
}

/** The console's sign-in page with the refusal's code, keeping the page the person was going to. */
export function refusalLocation(base: string, code: string, returnTo: string | undefined): string {
  const next = returnTo && returnTo !== '/' ? `&next=${encodeURIComponent(returnTo)}` : '';
  return `${base}/sign-in?sso_error=${code}${next}`;
}

async function takeFlow(deps: Deps, state: string | undefined, browserSecret: string | undefined) {
  if (!state || !browserSecret) throw new SsoRefusal('state_invalid');
  const now = deps.clock.now();
  const flow = await inFixedScope(deps.store.db, ALL_TENANTS).updateTable('sso_flows').set({ used_at: now })
    .where('state_hash', '=', sha256Hex(state)).where('used_at', 'is', null).where('expires_at', '>', now)
    .where('browser_hash', '=', sha256Hex(browserSecret))
    .returningAll().executeTakeFirst();
  if (!flow) throw new SsoRefusal('state_invalid');
  return flow;
}

async function redeem(
  deps: Deps, providers: ProviderConfigurations, settings: SsoSettingsRow, rawQuery: string,
  checks: { state: string; nonce: string; verifier: string },
): Promise<Record<string, unknown>> {
  const config = await providerConfig(deps, providers, settings);
  const currentUrl = new URL(`${callbackUrl(deps)}?${rawQuery}`);
  try {
    const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: checks.verifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true,
    });
    return tokens.claims() as Record<string, unknown> ?? {};
  } catch (error) {
    if (isKeySelection(error)) providers.forget(await clientOf(deps, settings));
    throw error;
  }
}

async function issueExchange(deps: Deps, settings: SsoSettingsRow, identity: Parameters<typeof memberFor>[2], meta: Meta) {
  const scoped = inFixedScope(deps.store.db, onlyTenants([settings.tenant_id]));
  const attempt = () => scoped.transaction().execute(async (tx) => {
    const now = deps.clock.now();
    const user = await memberFor(tx, settings, identity, meta, now);
    const code = randomSecret(EXCHANGE_PREFIX);
    await tx.insertInto('sso_exchanges').values({
      tenant_id: settings.tenant_id, code_hash: sha256Hex(code), user_id: user.id,
      created_at: now, expires_at: new Date(now.getTime() + EXCHANGE_TTL_MS),
    }).execute();
    return code;
  });
  try {
    return await attempt();
  } catch (error) {
    // Two first sign-ins of one person at once: the second finds the member the first created.
    if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return attempt();
    throw error;
  }
}

/** Turns the callback's one-time code into a session, as a password login would. */
export async function exchangeCode(deps: Deps, code: string, meta: Meta): Promise<LoginResult> {
  const now = deps.clock.now();
  const hash = sha256Hex(code);
  const found = await inFixedScope(deps.store.db, ALL_TENANTS).selectFrom('sso_exchanges').select(['tenant_id'])
    .where('code_hash', '=', hash).executeTakeFirst();
  const refused = () => new AppError('unauthorized', 'The sign-in code is unknown, used or expired; sign in again');
  if (!found) throw refused();
  return inFixedScope(deps.store.db, onlyTenants([found.tenant_id])).transaction().execute(async (tx) => {
    const exchange = await tx.updateTable('sso_exchanges').set({ used_at: now }).where('code_hash', '=', hash)
      .where('used_at', 'is', null).where('expires_at', '>', now).returningAll().executeTakeFirst();
    if (!exchange) throw refused();
    const user = await tx.selectFrom('users').selectAll().where('tenant_id', '=', exchange.tenant_id)
      .where('id', '=', exchange.user_id).where('status', '=', 'active').executeTakeFirst();
    if (!user) throw refused();
    const session = await createSession(tx, user.tenant_id, user.id, now, deps.config.auth.sessionTtlSeconds);
    const updated = await tx.updateTable('users').set({ last_login: now }).where('tenant_id', '=', user.tenant_id)
      .where('id', '=', user.id).returningAll().executeTakeFirstOrThrow();
    await writeAudit(tx, userContext(user, meta), { action: 'auth.login', targetType: 'user', targetId: user.id, details: { via: 'sso' } }, now);
    return { token: session.token, token_type: 'Bearer' as const, expires_at: session.expiresAt.toISOString(), user: toUserResponse(updated) };
  });
}

async function providerConfig(deps: Deps, providers: ProviderConfigurations, settings: SsoSettingsRow) {
  try {
    return await providers.get(await clientOf(deps, settings), deps.clock.now().getTime());
  } catch (error) {
    throw new SsoRefusal('provider_unreachable', error instanceof Error ? error.message : String(error));
  }
}

async function clientOf(deps: Deps, settings: SsoSettingsRow) {
  return { issuer: settings.issuer, clientId: settings.client_id, clientSecret: await clientSecret(deps, settings) };
}

async function auditRefusal(deps: Deps, tenantId: string, refusal: SsoRefusal, meta: Meta): Promise<void> {
  const ctx: RequestContext = {
    tenantId, actor: { type: 'system', id: null, label: 'single sign-on' }, role: null, scopes: [], sessionId: null,
    requestId: meta.requestId, ip: meta.ip,
  };
  await inFixedScope(deps.store.db, onlyTenants([tenantId])).transaction().execute((tx) => writeAudit(tx, ctx, {
    action: 'auth.sso_refused', targetType: 'tenant', targetId: tenantId,
    details: { reason: refusal.code, ...(refusal.detail ? { detail: refusal.detail.slice(0, 500) } : {}) },
  }, deps.clock.now()));
}
