import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { parseCookie, stringifySetCookie } from 'cookie';
import { Type } from 'typebox';
import type { Deps } from '../../platform/deps.js';
import { AppError } from '../../kernel/errors.js';
import { errorResponses, NoContent, ref } from '../../kernel/schemas.js';
import { LoginResponse } from '../users/users.schemas.js';
import { exchangeCode, finishSignIn, refusalLocation, startSignIn } from './sso.flow.js';
import { ProviderConfigurations } from './sso.provider.js';
import { SSO_REFUSALS, SsoRefusal } from './sso.refusals.js';
import {
  PutSsoSettingsBody, SsoCallbackQuery, SsoExchangeBody, SsoSettingsSchema, SsoStartQuery, SsoTestBody, SsoTestResult,
} from './sso.schemas.js';
import { deleteSsoSettings, getSsoSettings, putSsoSettings, testSsoConnection } from './sso.settings.js';

/** Binds a sign-in to the browser that started it, so a sign-in link cannot be finished in another one. */
const BROWSER_COOKIE = 'ugs_sso';
const COOKIE_PATH = '/api/v1/auth/sso';
const Redirect = (description: string) => Type.Null({ description });

/** Single sign-on: the tenant's provider setting (admins), and the sign-in flow (public). */
export const ssoRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const providers = new ProviderConfigurations();
  const secureCookie = deps.config.server.publicBaseUrl.startsWith('https:');

  app.get('/tenant/sso', {
    schema: {
      tags: ['sso'], operationId: 'getSsoSettings', summary: 'Get the single sign-on setting',
      description: "The tenant's OpenID Connect provider; the client secret is never returned. 404 when none is set.",
      response: { 200: ref(SsoSettingsSchema), ...errorResponses(404) },
    },
  }, async (request) => getSsoSettings(deps, request.ctx));

  app.put('/tenant/sso', {
    schema: {
      tags: ['sso'], operationId: 'putSsoSettings', summary: 'Set up single sign-on',
      description: 'Sets the OpenID Connect provider (a PUT replaces the whole setting; `client_secret` may be left out to keep '
        + 'the stored one). Register `redirect_uri` at the provider. Each changed field is audited.',
      body: ref(PutSsoSettingsBody),
      response: { 200: ref(SsoSettingsSchema) },
    },
  }, async (request) => putSsoSettings(deps, request.ctx, request.body));

  app.delete('/tenant/sso', {
    schema: {
      tags: ['sso'], operationId: 'deleteSsoSettings', summary: 'Turn single sign-on off',
      description: 'Removes the provider setting: members sign in with their password again (those created by single sign-on '
        + 'have none and need a password reset).',
      response: { 204: NoContent, ...errorResponses(404) },
    },
  }, async (request, reply) => {
    await deleteSsoSettings(deps, request.ctx);
    return reply.code(204).send(null);
  });

  app.post('/tenant/sso/test', {
    schema: {
      tags: ['sso'], operationId: 'testSsoConnection', summary: 'Test the connection to the provider',
      description: "Reads the issuer's discovery document and key set, as a sign-in does, and says what was found or why it failed.",
      body: ref(SsoTestBody),
      response: { 200: ref(SsoTestResult), ...errorResponses(404) },
    },
  }, async (request) => testSsoConnection(deps, request.ctx, request.body.issuer));

  app.get('/auth/sso/start', {
    config: { access: { public: true } },
    schema: {
      tags: ['sso'], operationId: 'startSso', summary: 'Start a single sign-on',
      description: "Redirects to the tenant's provider (authorization code with PKCE, `state` and `nonce`). The tenant is named "
        + 'by `tenant_id`, or found by the domain of `email`. A browser that cannot start is sent back to the console\'s '
        + 'sign-in page with `sso_error`; other clients get the error body.',
      querystring: SsoStartQuery,
      response: { 302: Redirect("To the provider's authorization endpoint"), ...errorResponses(400, 404, 409, 503) },
    },
  }, async (request, reply) => {
    try {
      const { location, browserSecret } = await startSignIn(deps, providers, request.query);
      reply.header('set-cookie', stringifySetCookie({
        name: BROWSER_COOKIE, value: browserSecret, path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure: secureCookie, maxAge: 600,
      }));
      return reply.redirect(location, 302);
    } catch (error) {
      if (!(error instanceof SsoRefusal)) throw error;
      if (isNavigation(request)) {
        return reply.redirect(refusalLocation(deps.config.server.publicBaseUrl, error.code, request.query.return_to), 302);
      }
      throw asApiError(error);
    }
  });

  app.get('/auth/sso/callback', {
    config: { access: { public: true } },
    schema: {
      tags: ['sso'], operationId: 'ssoCallback', summary: 'Single sign-on callback',
      description: "Where the provider sends the browser back. Redirects to the console's sign-in page, with a one-time code in "
        + 'the fragment (`#sso_code=...`, for `exchangeSsoCode`) or with `?sso_error=<reason>`.',
      querystring: SsoCallbackQuery,
      response: { 302: Redirect("To the console's sign-in page") },
    },
  }, async (request, reply) => {
    const query = request.url.indexOf('?');
    const location = await finishSignIn(deps, providers, query < 0 ? '' : request.url.slice(query + 1), request.query,
      browserSecretOf(request), { ip: request.ip, requestId: request.id });
    reply.header('set-cookie', stringifySetCookie({
      name: BROWSER_COOKIE, value: '', path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure: secureCookie, maxAge: 0,
    }));
    reply.header('referrer-policy', 'no-referrer');
    return reply.redirect(location, 302);
  });

  app.post('/auth/sso/exchange', {
    config: { access: { public: true } },
    schema: {
      tags: ['sso'], operationId: 'exchangeSsoCode', summary: 'Exchange the single sign-on code for a session',
      description: 'Turns the one-time code of the callback (valid two minutes, once) into a session, as `login` does.',
      body: ref(SsoExchangeBody),
      response: { 200: ref(LoginResponse), ...errorResponses(401) },
    },
  }, async (request) => exchangeCode(deps, request.body.code, { ip: request.ip, requestId: request.id }));
};

function browserSecretOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header ? parseCookie(header)[BROWSER_COOKIE] : undefined;
}

/** A person's browser following a link (not a script), which is better sent back to a page than shown JSON. */
function isNavigation(request: FastifyRequest): boolean {
  return request.headers['sec-fetch-mode'] === 'navigate' || (request.headers.accept ?? '').includes('text/html');
}

function asApiError(refusal: SsoRefusal): AppError {
  if (refusal.code === 'not_configured') return new AppError('not_found', SSO_REFUSALS.not_configured);
  if (refusal.code === 'ambiguous_domain') return new AppError('conflict', SSO_REFUSALS.ambiguous_domain);
  return new AppError('unavailable', SSO_REFUSALS[refusal.code], { retryAfterSeconds: 30 });
}

