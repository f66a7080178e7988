import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';

/**
 * Helmet's headers, for every answer: no MIME sniffing, no referrer, a policy that loads nothing and
 * is framed nowhere (the console's pages and the reference page replace it with their own), no
 * framing, the browsing context and the resources kept to this origin. No Strict-Transport-Security:
 * the service speaks plain HTTP behind the proxy that terminates TLS, and that proxy, which owns the
 * host name and its certificate, is the one to pin HTTPS for it (docs/conventions.md).
 */
const setSecurityHeaders = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  strictTransportSecurity: false,
});

/** Puts the security headers on the answer to `request`; what the route sets later wins. */
export function securityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  setSecurityHeaders(request.raw, reply.raw, (error) => {
    if (error) throw error;
  });
}

/**
 * On arrival, so that error and 404 answers carry them too. Helmet itself rather than its Fastify
 * plugin: the router's own refusals (`frameworkErrors`) come before any hook, and call it as well.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    securityHeaders(request, reply);
    done();
  });
}
