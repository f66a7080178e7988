import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npm run build` puts the console (src/plugins and dist/plugins are both two levels below the root). */
export const CONSOLE_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

/** Paths that are never console pages: their unknown routes stay the API's JSON 404. */
const NOT_PAGES = /^\/(api|docs|assets|metrics|healthz|readyz)(\/|$)/;

/**
 * Scripts, styles, fonts and calls only from this origin, no inline script or style element:
 * the console can reach no other host, and injected markup cannot run.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "font-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the console built into `dir`: `/assets/*` (hashed names, cached for a year, served
 * precompressed when the browser accepts it) and index.html for `/` and every page path, never
 * cached so a new release is picked up at the next load. Returns false when no console is built.
 */
export async function registerConsole(app: FastifyInstance, dir = CONSOLE_DIR): Promise<boolean> {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return false;
  const html = readFileSync(indexPath, 'utf8');

  await app.register(fastifyStatic, {
    root: join(dir, 'assets'),
    prefix: '/assets/',
    index: false,
    preCompressed: true,
    immutable: true,
    maxAge: '365d',
    logLevel: 'warn',
  });

  const sendPage = (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', CONSOLE_CSP)
      .type('text/html; charset=utf-8')
      .send(html);

  app.get('/', { schema: { hide: true }, logLevel: 'warn' }, sendPage);
  app.get('/*', { schema: { hide: true }, logLevel: 'warn' }, (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const wantsPage = !NOT_PAGES.test(path) && !/\.[a-z0-9]+$/i.test(path) && (request.headers.accept ?? '').includes('text/html');
    return wantsPage ? sendPage(request, reply) : reply.callNotFound();
  });
  return true;
}
