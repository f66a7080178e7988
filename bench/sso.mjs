// Single sign-on through a real OpenID provider: part of `npm run bench` (BENCH_ONLY=sso), or alone with
// `node bench/sso.mjs` after `npm run build`. The provider (oidc-provider, HTTPS with a throwaway CA the
// service trusts through NODE_EXTRA_CA_CERTS) runs in this process; the service is `dist/cli.js serve` on
// the embedded store. BENCH_SSO_SIGN_INS (default 50) sign-ins, each: start, the provider's sign-in and
// consent pages (driven over HTTP as a browser would), the callback, the code exchange.
//   - the service's own time per sign-in: its three answers' durations minus the time the provider spent
//     answering the service during them (token endpoint, discovery, keys); target <= 200 ms (p95).
//   - limit: a password login (argon2id verification) in the same run, p50.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { pathToFileURL } from 'node:url';
import * as jose from 'jose';
import Provider from 'oidc-provider';
import { createCertificates } from './lib/certs.mjs';
import { figure, percentile } from './lib/report.mjs';
import { ADMIN, api, freePort, login, nowMs, startService } from './lib/service.mjs';

const SIGN_INS = Number(process.env.BENCH_SSO_SIGN_INS ?? 50);
const TARGET_MS = 200;
const CLIENT = { client_id: 'ugs-bench', client_secret: 'ugs-bench-client-secret-0123456789' };

async function startProvider(certs, redirectUri, accounts) {
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const key = { ...(await jose.exportJWK(privateKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const server = createServer({ cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [{ ...CLIENT, redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_post' }],
    jwks: { keys: [key] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    conformIdTokenClaims: false,
    cookies: { keys: ['ugs-bench-provider'] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, ...accounts(id) }) }),
  });
  // Time the provider spends answering the service itself (not the browser's pages).
  const serviceFacing = { ms: 0 };
  provider.use(async (ctx, next) => {
    const started = nowMs();
    await next();
    if (['/token', '/jwks', '/.well-known/openid-configuration'].includes(ctx.path)) serviceFacing.ms += nowMs() - started;
  });
  server.on('request', provider.callback());
  return { issuer, serviceFacing, close: () => { server.closeAllConnections(); server.close(); } };
}

/** A browser's cookie jar for two origins, enough for the provider's and the service's cookies. */
class Jar {
  cookies = new Map();
  store(origin, response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(`${origin} ${pair.slice(0, at)}`, pair.slice(at + 1));
    }
  }
  header(origin) {
    return [...this.cookies].filter(([key]) => key.startsWith(`${origin} `)).map(([key, value]) => `${key.split(' ')[1]}=${value}`).join('; ');
  }
}

async function visit(jar, url, init = {}) {
  const target = new URL(url);
  const response = await fetch(target, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: jar.header(target.origin) } });
  jar.store(target.origin, response);
  return response;
}

/** Follows the provider's redirects and submits its pages' forms until it sends the browser to `until`. */
async function throughProvider(jar, location, until, login) {
  let url = location;
  for (let step = 0; step < 12; step += 1) {
    if (url.startsWith(until)) return url;
    const answer = await visit(jar, url);
    if (answer.status >= 300 && answer.status < 400) {
      url = new URL(answer.headers.get('location'), url).href;
      continue;
    }
    const html = await answer.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the provider's page at ${url} has no form (${answer.status})`);
    const fields = Object.fromEntries([...html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const form = new URLSearchParams({ ...fields, login, password: 'any' });
    const posted = await visit(jar, new URL(action, url).href, {
      method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    url = new URL(posted.headers.get('location'), url).href;
  }
  throw new Error('the provider did not send the browser back');
}

async function timed(run) {
  const started = nowMs();
  const value = await run();
  return { value, ms: nowMs() - started };
}

export async function runSso() {
  const certs = createCertificates();
  // This process plays the browser too, which trusts the provider's CA as the service does.
  setDefaultCACertificates([...getCACertificates('default'), readFileSync(certs.caFile, 'utf8')]);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const provider = await startProvider(certs, `${base}/api/v1/auth/sso/callback`,
    (id) => ({ email: `${id}@bench.test`, email_verified: true, name: id, groups: ['staff'] }));
  const service = await startService({ PORT: String(port), PUBLIC_BASE_URL: base, NODE_EXTRA_CA_CERTS: certs.caFile });
  try {
    const token = await login(base, ADMIN);
    await api(base, token, 'PUT', '/api/v1/tenant/sso', {
      issuer: provider.issuer, ...CLIENT, allowed_domains: ['bench.test'], default_role: 'viewer',
    });
    const own = [];
    for (let i = 0; i < SIGN_INS + 1; i += 1) {
      const jar = new Jar();
      provider.serviceFacing.ms = 0;
      const start = await timed(() => visit(jar, `${base}/api/v1/auth/sso/start?email=person${i}@bench.test`));
      const callbackUrl = await throughProvider(jar, start.value.headers.get('location'), `${base}/api/v1/auth/sso/callback`, `person${i % 10}`);
      const callback = await timed(() => visit(jar, callbackUrl));
      const landing = callback.value.headers.get('location') ?? '';
      const code = /#sso_code=([^&]+)/.exec(landing)?.[1];
      if (!code) throw new Error(`sign-in ${i} refused: ${landing}`);
      const exchange = await timed(() => fetch(`${base}/api/v1/auth/sso/exchange`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: decodeURIComponent(code) }),
      }).then(async (r) => { if (!r.ok) throw new Error(`exchange ${r.status}`); return r.json(); }));
      // The first sign-in reads the discovery document and keys: counted, but not in the figures.
      if (i > 0) own.push(start.ms + callback.ms + exchange.ms - provider.serviceFacing.ms);
    }
    const logins = [];
    for (let i = 0; i < 20; i += 1) logins.push((await timed(() => login(base, ADMIN))).ms);
    const limit = percentile(logins, 0.5);
    console.log(`\nSingle sign-on, ${SIGN_INS} sign-ins through an in-process OpenID provider (embedded store)`);
    console.table([
      figure({ scenario: 'sso', name: "service's own time per sign-in, p50 (ms)", value: percentile(own, 0.5), limit,
        limitIs: 'password login p50', target: { op: '<=', value: TARGET_MS } }),
      figure({ scenario: 'sso', name: "service's own time per sign-in, p95 (ms)", value: percentile(own, 0.95), limit,
        limitIs: 'password login p50', target: { op: '<=', value: TARGET_MS } }),
    ]);
  } finally {
    await service.stop();
    provider.close();
    certs.dispose();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runSso();
