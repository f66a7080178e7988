import { createHash } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { referenceFonts } from './reference-fonts.js';

/** Where the API reference lives; Scalar serves the page at `${DOCS_PATH}/` and its script below it. */
export const DOCS_PATH = '/docs';
/** Where `GET /` sends a browser when no console is built (the console is served at `/` otherwise). */
export const HOME_PAGE = `${DOCS_PATH}/`;

const PAGE_TITLE = 'Usage-Governance Service API';

/**
 * The API reference page (Scalar), working with no network: its script and fonts come from this
 * service, and every feature of the hosted product that would send the document or requests
 * elsewhere is off. A Content-Security-Policy holds the page to this origin whatever the
 * renderer tries.
 */
export async function registerReferencePage(app: FastifyInstance, options: { documentUrl: string; redirectHome: boolean }): Promise<void> {
  const fonts = referenceFonts(`${DOCS_PATH}/fonts`);
  const renderer = lazyRenderer({
    routePrefix: DOCS_PATH,
    logLevel: 'warn',
    configuration: {
      url: options.documentUrl,
      pageTitle: PAGE_TITLE,
      withDefaultFonts: false,
      customCss: fonts.css,
      telemetry: false,
      showDeveloperTools: 'never',
      hideClientButton: true,
      agent: { disabled: true },
      mcp: { disabled: true },
      persistAuth: false,
    },
  });
  await app.register(async (page) => {
    // The page's own policy replaces the strict one of every answer (security-headers.ts).
    page.addHook('onSend', async (_request, reply, payload) => {
      if (typeof payload === 'string' && String(reply.getHeader('content-type')).startsWith('text/html')) {
        reply.header('Content-Security-Policy', contentSecurityPolicy(payload));
      }
      return payload;
    });
    for (const url of [DOCS_PATH, `${DOCS_PATH}/`, `${DOCS_PATH}/${SCRIPT_PATH}`]) {
      page.get(url, { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
        const answer = await (await renderer()).inject({ method: 'GET', url: request.url, headers: { host: request.headers.host ?? 'localhost' } });
        for (const name of ['content-type', 'location', 'cache-control'] as const) {
          const value = answer.headers[name];
          if (value !== undefined) reply.header(name, value);
        }
        return reply.code(answer.statusCode).send(answer.body);
      });
    }
    fonts.register(page);
  });

  if (options.redirectHome) app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(HOME_PAGE, 302));
}

/** Where Scalar's plugin serves its script, below its prefix. */
const SCRIPT_PATH = 'js/scalar.js';

/**
 * Scalar's plugin, in a Fastify instance of its own made on the first visit: it holds its 4 MB
 * script as a string from the moment it is imported (about 40 MiB of memory with its
 * dependencies), which a service whose reference page nobody opens should not carry.
 */
function lazyRenderer(options: Record<string, unknown>): () => Promise<FastifyInstance> {
  let made: Promise<FastifyInstance> | undefined;
  return () => {
    made ??= (async () => {
      const { default: scalar } = await import('@scalar/fastify-api-reference');
      const renderer = Fastify({ logger: false });
      await renderer.register(scalar, options);
      await renderer.ready();
      return renderer;
    })();
    made.catch(() => { made = undefined; });
    return made;
  };
}

const INLINE_SCRIPT = /<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g;
let lastPolicy: { html: string; policy: string } | undefined;

/**
 * Scripts only from this origin plus the page's own inline start-up script, allowed by its hash
 * (Scalar renders it with the configuration, the same for every request). Styles must allow
 * inline: the renderer injects its stylesheet and sets `style` attributes. Fetches, fonts and
 * images are held to this origin, so nothing on the page can reach another host.
 */
function contentSecurityPolicy(html: string): string {
  if (lastPolicy?.html === html) return lastPolicy.policy;
  const hashes = [...html.matchAll(INLINE_SCRIPT)]
    .map(([, body]) => `'sha256-${createHash('sha256').update(body ?? '').digest('base64')}'`);
  const policy = [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  lastPolicy = { html, policy };
  return policy;
}
